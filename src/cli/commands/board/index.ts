import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as run from './run';

/** What a verb's module exports: it declares its command and flags on the root. */
export interface BoardVerbModule {
  declareCommand(program: Command<[], GlobalOptions>): void;
}

/** The verb modules: `board` is one command, at the root. A new verb is its file and a line here. */
export const boardVerbs: readonly BoardVerbModule[] = [run];

/**
 * `the-loop board`: serve the board in the foreground (as `the-loop start` does in the background), or print a link.
 * run.ts declares its flags and a `run(options, io)` that loads the board only when it runs.
 */
export function registerBoardCommand(program: Command<[], GlobalOptions>): void {
  for (const verb of boardVerbs) verb.declareCommand(program);
}
