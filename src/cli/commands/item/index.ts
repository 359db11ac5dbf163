import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as show from './show';

/** What a verb's module exports: it declares its command and flags on `item`. */
export interface ItemVerbModule {
  declareCommand(item: Command<[], GlobalOptions>): void;
}

/** The verb modules, one file each under this folder. A new verb is its file and a line here (and its import above). */
export const itemVerbs: readonly ItemVerbModule[] = [show];

/**
 * `the-loop item <verb>`: work items as GitHub has them. Each verb's module exports `declareCommand`, which declares
 * its flags and a `run` that loads the GitHub client only when it runs.
 */
export function registerItemCommands(program: Command<[], GlobalOptions>): void {
  const item = program.command('item').description('work items as GitHub has them');
  for (const verb of itemVerbs) verb.declareCommand(item);
}
