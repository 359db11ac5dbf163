import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as run from './run';

/** What a verb's module exports: it declares its command and flags on the root. */
export interface InboxVerbModule {
  declareCommand(program: Command<[], GlobalOptions>): void;
}

/** The verb modules: `inbox` is one command, at the root. A new verb is its file and a line here. */
export const inboxVerbs: readonly InboxVerbModule[] = [run];

/**
 * `the-loop inbox`: every wait for a person, oldest first. run.ts declares its flags and a `run(options, io)` that
 * loads the records only when it runs.
 */
export function registerInboxCommand(program: Command<[], GlobalOptions>): void {
  for (const verb of inboxVerbs) verb.declareCommand(program);
}
