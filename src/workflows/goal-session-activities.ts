import { ActivityCancellationType, proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { GoalSessionInput } from './goal-session-types';

type Proxy = ActivityInterfaceFor<Activities>;

/**
 * A goal session's activities, on the host queue of the machine that holds its directory. `files`: short file
 * writes (projections, init, salvage, finish). `iterations`: the harness turn, as long as the iteration timeout,
 * waiting for its cancellation to complete.
 */
export function goalSessionActivities(input: GoalSessionInput): { files: Proxy; iterations: Proxy } {
  const retry = { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] };
  return {
    files: proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '2 minutes',
      // Short file writes: a worker that dies holding one is noticed as fast as a harness turn.
      heartbeatTimeout: input.heartbeatTimeoutMs,
      retry,
    }),
    iterations: proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: input.iterationTimeoutMs + 60_000,
      heartbeatTimeout: input.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry,
    }),
  };
}
