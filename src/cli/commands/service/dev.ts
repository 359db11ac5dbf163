import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo } from '../../io';
import { loadContext } from '../../load-context';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';

export type DevOptions = GlobalOptions & { logFormat: LogOptions['format']; logLevel: LogOptions['level'] };

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('dev')
    .description('run the embedded Temporal dev server and a worker in the foreground; Ctrl-C stops both')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop dev`: the server and a worker in this process until Ctrl-C; what they do goes to the log. */
export async function run(options: DevOptions): Promise<number> {
  // The worker SDK is loaded only by the commands that run a worker: it costs every other command ~0.4 s.
  const { runDev } = await import('../../../service/dev.js');
  await runDev(await loadContext(options, logOptionsOf(options)));
  return EXIT.ok;
}
