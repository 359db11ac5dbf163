import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';

export type StartOptions = GlobalOptions & { logFormat: LogOptions['format']; logLevel: LogOptions['level'] };

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('start')
    .description(
      'start the embedded Temporal dev server (when no Temporal is configured) and a worker, in the background',
    )
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop start`: the server (unless Temporal is configured), a worker, and the parts configured, each once. */
export async function run(options: StartOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options, logOptionsOf(options));
  const { startService } = await import('../../../service/service.js');
  const { describeReplaced } = await import('../../../service/replace-unresponsive.js');
  const result = await startService(ctx);
  if (result.server) {
    io.out(
      result.server.started
        ? `started the Temporal dev server (pid ${result.server.pid}) on ${result.target.address}`
        : `the Temporal dev server is already running (pid ${result.server.pid}) on ${result.target.address}`,
    );
  } else {
    io.out(`using Temporal at ${result.target.address} (${result.target.source})`);
  }
  const { replaced } = result.worker;
  if (replaced) io.out(describeReplaced(replaced));
  io.out(
    result.worker.started
      ? `started a worker (pid ${result.worker.pid})`
      : `a worker is already running (pid ${result.worker.pid}, \`the-loop ${result.worker.command}\`)`,
  );
  if (result.webhook) {
    const where = result.webhook.url ? ` on ${result.webhook.url}` : '';
    io.out(
      result.webhook.started
        ? `started the webhook receiver (pid ${result.webhook.pid})${where}`
        : `the webhook receiver is already running (pid ${result.webhook.pid})${where}`,
    );
  }
  if (result.board && 'problem' in result.board) {
    io.err(`warning: the board did not start: ${result.board.problem}`);
  } else if (result.board) {
    const where = result.board.url ? ` on ${result.board.url}` : '';
    io.out(
      result.board.started
        ? `started the board (pid ${result.board.pid})${where}`
        : `the board is already running (pid ${result.board.pid})${where}`,
    );
  }
  if (result.supervisor?.started) {
    io.out(`started the supervisor (pid ${result.supervisor.pid}): it restarts a part that exits`);
  }
  if (result.uiAddress) io.out(`web ui: ${result.uiAddress}`);
  if (result.board && 'url' in result.board && result.board.url) io.out(`board: ${result.board.url}`);
  return EXIT.ok;
}
