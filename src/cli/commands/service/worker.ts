import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo } from '../../io';
import { loadContext } from '../../load-context';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';

export type WorkerOptions = GlobalOptions & {
  readyFile?: string;
  logFormat: LogOptions['format'];
  logLevel: LogOptions['level'];
};

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('worker')
    .description(
      'run only a worker, against the Temporal that TEMPORAL_* variables, temporal.toml or the-loop.yaml select',
    )
    .option('--ready-file <path>', 'write this file once the worker polls (used by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop worker`: a worker in this process until it is stopped; what it does goes to the log. */
export async function run(options: WorkerOptions): Promise<number> {
  const { runWorkerCommand } = await import('../../../service/worker-process.js');
  await runWorkerCommand(await loadContext(options, logOptionsOf(options)), options.readyFile);
  return EXIT.ok;
}
