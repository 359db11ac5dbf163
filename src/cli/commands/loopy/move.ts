import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type MoveOptions = GlobalOptions & { toHost: string };

/**
 * A host id (it names a task queue). Stricter than `worker.hostId` in the config: it starts with a letter or digit,
 * so that no id given on the command line is read as a flag.
 */
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('move')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .requiredOption('--to-host <id>', "the host to run on from now on (its worker's worker.hostId)")
    .description(
      'run the session on another host from now on: its directory must be reachable there at the same path',
    )
    .action((session, _options, command) =>
      runWithProcessIo((options: MoveOptions, io) => run(session, options, io), command.optsWithGlobals()),
    );
}

/**
 * `loopy move <session> --to-host <id>`: the session runs on another host from now on. Refused at once when no worker
 * polls that host's queue; the workflow then has a worker there take the session's directory over, and only then
 * moves (the turn that ran on the old host is settled on the new one).
 */
export async function run(id: string | undefined, options: MoveOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const toHost = options.toHost;
  if (!HOST_ID.test(toHost)) {
    throw new CliError(
      `--to-host '${toHost}' is not a host id (a letter or digit, then letters, digits, '.', '_', '-')`,
      EXIT.usage,
    );
  }
  const { connectExisting } = await import('../../../service/connect-existing.js');
  const { sessionWorkflow } = await import('./session-workflow.js');
  const { hostQueueName } = await import('../../../workflows/goal-session/host-queue.js');
  const { hostQueueHasPollers } = await import('./host-pollers.js');
  const connected = await connectExisting(ctx);
  try {
    const { located, handle, description } = await sessionWorkflow(connected, id);
    if (description.status.name !== 'RUNNING') {
      throw new CliError(`session ${located.sessionId} has already ended: nothing to move`, EXIT.failure);
    }
    const hostQueue = hostQueueName(description.taskQueue, toHost);
    if (!(await hostQueueHasPollers(connected, hostQueue))) {
      throw new CliError(
        `no worker polls host ${toHost}'s queue (${hostQueue}): run \`the-loop worker\` there with worker.hostId: ${toHost}, then move again`,
        EXIT.failure,
      );
    }
    const { moveUpdate } = await import('../../../workflows/goal-session/messages.js');
    const result = await handle.executeUpdate(moveUpdate, { args: [{ hostId: toHost, by: 'user' }] });
    if (!result.moved) {
      io.err(
        `move refused — session ${located.sessionId} stays on host ${result.hostId}: ${result.reason ?? ''}`,
      );
      return EXIT.failure;
    }
    io.out(
      `moved — session ${located.sessionId} runs on host ${result.hostId}; a turn that ran on the old host is settled there`,
    );
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
