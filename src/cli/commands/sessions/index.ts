import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as answer from './answer';
import * as attach from './attach';
import * as close from './close';
import * as control from './control';
import * as linkPr from './link-pr';
import * as list from './list';
import * as outcome from './outcome';
import * as register from './register';
import * as reset from './reset';
import * as restart from './restart';
import * as show from './show';
import { sessionsCommand, type SessionsCommand } from './shared';

/** What a verb's module exports: it declares its command(s) and flags on `sessions`. */
export interface SessionsVerbModule {
  declareCommand(sessions: SessionsCommand): void;
}

/**
 * The verb modules, one file each under this folder, in file-name order: `--help` lists their commands in this
 * order. A new verb is its file and a line here (and its import above).
 */
export const sessionsVerbs: readonly SessionsVerbModule[] = [
  answer,
  attach,
  close,
  control,
  linkPr,
  list,
  outcome,
  register,
  reset,
  restart,
  show,
];

/**
 * `the-loop sessions <verb>`: each verb's module exports `declareCommand`, which declares its flags and a
 * `run(options, io)` that loads its use case (src/use-cases/) only when it runs. Where the records live is the
 * config's (the worker's storage setting), not a flag.
 */
export function registerSessionsCommands(program: Command<[], GlobalOptions>): void {
  const sessions = sessionsCommand(program);
  for (const verb of sessionsVerbs) verb.declareCommand(sessions);
}
