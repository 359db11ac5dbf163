import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo } from '../../io';
import { loadContext } from '../../load-context';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';

export type SuperviseOptions = GlobalOptions & {
  logFormat: LogOptions['format'];
  logLevel: LogOptions['level'];
};

/** Hidden: `the-loop start` runs it, a person has no reason to. */
export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('supervise', { hidden: true })
    .description('restart a part of the service that exits (started by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop supervise`: restarts the parts `the-loop start` started when one exits, until it is stopped. */
export async function run(options: SuperviseOptions): Promise<number> {
  const { runSupervisor } = await import('../../../service/supervisor.js');
  await runSupervisor(await loadContext(options, logOptionsOf(options)));
  return EXIT.ok;
}
