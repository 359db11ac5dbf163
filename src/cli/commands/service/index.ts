import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as dev from './dev';
import * as start from './start';
import * as status from './status';
import * as stop from './stop';
import * as supervise from './supervise';
import * as temporalCli from './temporal-cli';
import * as temporalServer from './temporal-server';
import * as worker from './worker';

/** What a verb's module exports: it declares its command and flags on the root. */
export interface ServiceVerbModule {
  declareCommand(program: Command<[], GlobalOptions>): void;
}

/**
 * The verb modules, one file each under this folder (status-lines.ts is status's text), in the order `--help` lists
 * them: the everyday ones first. A new verb is its file and a line here (and its import above).
 */
export const serviceVerbs: readonly ServiceVerbModule[] = [
  start,
  stop,
  status,
  dev,
  worker,
  supervise,
  temporalCli,
  temporalServer,
];

/**
 * `the-loop start|stop|status|dev|worker|…`: the service, at the root. Each verb's module exports `declareCommand`,
 * which declares its flags and a `run` that loads the service's modules only when it runs. `stop` and `status` of
 * `loopy`, or given a session, act on a goal session (loopy/).
 */
export function registerServiceCommands(program: Command<[], GlobalOptions>): void {
  for (const verb of serviceVerbs) verb.declareCommand(program);
}
