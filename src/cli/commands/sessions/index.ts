import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { sessionsCommand, type SessionsCommand } from './shared';

/** What a verb's file exports: it declares its command(s) and flags on `sessions`. */
interface VerbFile {
  declareCommand?: (sessions: SessionsCommand) => void;
}

/**
 * `the-loop sessions <verb>`: one file per verb under this folder, each exporting `declareCommand`, which declares
 * its flags and a `run(options, io)` that loads its use case (src/sessions/) only when it runs. The verbs are found
 * by reading this folder, so adding one is adding its file; `--help` lists them in file-name order. Where the
 * records live is the config's (the worker's storage setting), not a flag.
 */
export function registerSessionsCommands(program: Command<[], GlobalOptions>): void {
  const sessions = sessionsCommand(program);
  // .ts under the tests' transform, .js once built; this file is not a verb
  const files = readdirSync(__dirname).filter(
    (f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts') && !/^index\.[jt]s$/.test(f),
  );
  for (const file of files.sort()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- found by reading the folder: no import names it
    const verb = require(join(__dirname, file)) as VerbFile;
    verb.declareCommand?.(sessions);
  }
}
