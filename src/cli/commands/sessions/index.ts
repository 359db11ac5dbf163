import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { removedStorageOption } from '../../removed-storage-options';
import { declareAnswer } from './answer';
import { declareAttach } from './attach';
import { declareClose } from './close';
import { declareControl } from './control';
import { declareLinkPr } from './link-pr';
import { declareList } from './list';
import { declareOutcome } from './outcome';
import { declareRegister } from './register';
import { declareReset } from './reset';
import { declareRestart } from './restart';

/**
 * `the-loop sessions <verb>`: one file per verb under this folder, each declaring its flags and a `run(options,
 * io)` that loads its use case (src/sessions/) only when it runs. Where the records live is the config's (the
 * worker's storage setting), not a flag.
 */
export function registerSessionsCommands(program: Command<[], GlobalOptions>): void {
  const sessions = program
    .command('sessions')
    .description('the work-item ↔ harness-session registry, execution control, reset and restart')
    .configureHelp({ showGlobalOptions: true });
  // hidden: they only tell an old script where the storage setting went
  sessions.addOption(removedStorageOption('--registry-dir'));
  sessions.addOption(removedStorageOption('--portable-dir'));
  for (const declare of [
    declareRegister,
    declareLinkPr,
    declareList,
    declareAttach,
    declareClose,
    declareReset,
    declareRestart,
    declareControl,
    declareAnswer,
    declareOutcome,
  ]) {
    declare(sessions);
  }
}
