import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as create from './create';

/** What a verb's module exports: it declares its command and flags on `pr`. */
export interface PrVerbModule {
  declareCommand(pr: Command<[], GlobalOptions>): void;
}

/** The verb modules, one file each under this folder. A new verb is its file and a line here (and its import above). */
export const prVerbs: readonly PrVerbModule[] = [create];

/**
 * `the-loop pr <verb>`: pull requests that deliver work items. Each verb's module exports `declareCommand`, which
 * declares its flags and a `run(options, io)` that loads the GitHub client only when it runs.
 */
export function registerPrCommands(program: Command<[], GlobalOptions>): void {
  const pr = program.command('pr').description('pull requests that deliver work items');
  for (const verb of prVerbs) verb.declareCommand(pr);
}
