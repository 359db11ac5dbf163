import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as run from './run';

/** What a verb's module exports: it declares its command and flags on `eval`. */
export interface EvalVerbModule {
  declareCommand(evalCommand: Command<[], GlobalOptions>): void;
}

/** The verb modules, one file each under this folder. A new verb is its file and a line here (and its import above). */
export const evalVerbs: readonly EvalVerbModule[] = [run];

/**
 * `the-loop eval <verb>`: eval checks of a session. Each verb's module exports `declareCommand`, which declares its
 * flags and a `run(options, io)` that loads the runner only when it runs.
 */
export function registerEvalCommands(program: Command<[], GlobalOptions>): void {
  const evalCommand = program
    .command('eval')
    .description('eval checks of a session (eval-banana compatible)');
  for (const verb of evalVerbs) verb.declareCommand(evalCommand);
}
