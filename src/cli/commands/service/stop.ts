import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type StopOptions = GlobalOptions & { reason?: string };

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('stop')
    .argument('[session]', 'a goal session id: stop that session (loopy stop stops the most recent one)')
    .option('--reason <text>', "with a session: why; recorded as the session's stop reason")
    .description(
      'the-loop: stop what `the-loop start` started; loopy or with a session: cancel its running iteration and end it',
    )
    .action((session, _options, command) =>
      runWithProcessIo(
        (options: StopOptions, io) => run(session, program.name() === 'loopy', options, io),
        command.optsWithGlobals(),
      ),
    );
}

/**
 * `the-loop stop`: stops what `the-loop start` started, each part's outcome a line. `loopy stop`, or either with a
 * session: ends that goal session (loopy/control.ts).
 */
export async function run(
  session: string | undefined,
  invokedAsLoopy: boolean,
  options: StopOptions,
  io: Io,
): Promise<number> {
  if (session !== undefined || invokedAsLoopy) {
    const { run: controlGoalSession } = await import('../loopy/control.js');
    return controlGoalSession('stop', session, options, io);
  }
  const ctx = await loadContext(options);
  const { stopService } = await import('../../../service/service.js');
  const result = await stopService(ctx);
  if (result.supervisor !== 'not-running') io.out(`supervisor: stopped (${result.supervisor})`);
  if (result.webhook !== 'not-running') io.out(`webhook: stopped (${result.webhook})`);
  if (result.board !== 'not-running') io.out(`board: stopped (${result.board})`);
  io.out(`worker: ${result.worker === 'not-running' ? 'was not running' : `stopped (${result.worker})`}`);
  io.out(`server: ${result.server === 'not-running' ? 'was not running' : `stopped (${result.server})`}`);
  return EXIT.ok;
}
