import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as control from './control';
import * as events from './events';
import * as list from './list';
import * as move from './move';
import * as run from './run';
import * as update from './update';

/** What a verb's module exports: it declares its command(s) and flags on the root. */
export interface LoopyVerbModule {
  declareCommand(program: Command<[], GlobalOptions>): void;
}

/**
 * The verb modules, in the order `--help` lists their commands: run first, then what steers a running session, then
 * what reads one. A new verb is its file and a line here (and its import above). `stop` and `status` are the
 * service's verbs (service/), which run control.ts and status.ts for a goal session; live-state.ts,
 * session-files.ts and session-workflow.ts are what the verbs share.
 */
export const loopyVerbs: readonly LoopyVerbModule[] = [run, control, move, update, list, events];

/**
 * `loopy <verb>`: the goal-session verbs, at the root. Each verb's module exports `declareCommand`, which declares
 * its flags and a `run` that loads what it needs only when it runs: file-only verbs (list, events, status of an
 * ended session) never load the Temporal client.
 */
export function registerLoopyCommands(program: Command<[], GlobalOptions>): void {
  for (const verb of loopyVerbs) verb.declareCommand(program);
}
