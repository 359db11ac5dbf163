// Moving a goal session to another host (`loopy move`): the new host takes the session's directory over first, so a
// session never moves to a host that cannot reach its files. Workflow code: deterministic.
import { proxyActivities, rootCause, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { GoalSessionInput } from './goal-session-types';
import { hostQueueName } from './host-queue';

/** How long a move waits for a worker of the new host to take the directory over before it is refused. */
const ADOPT_WITHIN = '2 minutes';

/** The new host's queue once a worker there has taken the session's directory over; else why it did not. */
export async function adoptOnHost(
  input: Pick<GoalSessionInput, 'sessionId' | 'sessionDir' | 'taskQueue'>,
  hostId: string,
): Promise<{ hostQueue: string } | { refused: string }> {
  const hostQueue = hostQueueName(input.taskQueue, hostId);
  const { adoptSession } = proxyActivities<Activities>({
    taskQueue: hostQueue,
    scheduleToCloseTimeout: ADOPT_WITHIN,
    retry: { initialInterval: '1s', maximumAttempts: 3 },
  });
  try {
    await adoptSession({ sessionId: input.sessionId, sessionDir: input.sessionDir, hostQueue });
    return { hostQueue };
  } catch (error) {
    const timedOut = error instanceof Error && error.cause instanceof TimeoutFailure;
    return {
      refused: timedOut
        ? `no worker of host ${hostId} took the session within ${ADOPT_WITHIN}`
        : (rootCause(error) ?? String(error)),
    };
  }
}
