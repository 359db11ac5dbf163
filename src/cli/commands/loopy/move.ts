import { temporal } from '@temporalio/proto';
import type { CliContext } from '../../../service/context';
import { connectExisting } from '../../../service/ensure-service';
import { sessionWorkflow } from './session-workflow';
import { CliError, EXIT } from '../../../errors';
import { hostQueueName } from '../../../workflows/goal-session/host-queue';
import { processIo } from '../../io';

/**
 * A host id (it names a task queue). Stricter than `worker.hostId` in the config: it starts with a letter or digit,
 * so that no id given on the command line is read as a flag.
 */
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * `loopy move <session> --to-host <id>`: the session runs on another host from now on. Refused at once when no worker
 * polls that host's queue; the workflow then has a worker there take the session's directory over, and only then
 * moves (the turn that ran on the old host is settled on the new one).
 */
export async function run(ctx: CliContext, id: string | undefined, toHost: string): Promise<number> {
  if (!HOST_ID.test(toHost)) {
    throw new CliError(
      `--to-host '${toHost}' is not a host id (a letter or digit, then letters, digits, '.', '_', '-')`,
      EXIT.usage,
    );
  }
  const connected = await connectExisting(ctx);
  try {
    const { located, handle, description } = await sessionWorkflow(connected, id);
    if (description.status.name !== 'RUNNING') {
      throw new CliError(`session ${located.sessionId} has already ended: nothing to move`, EXIT.failure);
    }
    const hostQueue = hostQueueName(description.taskQueue, toHost);
    const { pollers } = await connected.client.workflowService.describeTaskQueue({
      namespace: connected.target.namespace,
      taskQueue: { name: hostQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    if (!pollers || pollers.length === 0) {
      throw new CliError(
        `no worker polls host ${toHost}'s queue (${hostQueue}): run \`the-loop worker\` there with worker.hostId: ${toHost}, then move again`,
        EXIT.failure,
      );
    }
    const { moveUpdate } = await import('../../../workflows/goal-session/messages.js');
    const result = await handle.executeUpdate(moveUpdate, { args: [{ hostId: toHost, by: 'user' }] });
    if (!result.moved) {
      processIo.err(
        `move refused — session ${located.sessionId} stays on host ${result.hostId}: ${result.reason ?? ''}`,
      );
      return EXIT.failure;
    }
    processIo.out(
      `moved — session ${located.sessionId} runs on host ${result.hostId}; a turn that ran on the old host is settled there`,
    );
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
