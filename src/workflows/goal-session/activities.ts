import { ActivityCancellationType, proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { SESSION_FILE_FAULT } from './faults';
import type { GoalSessionInput } from './types';

type Proxy = ActivityInterfaceFor<Activities>;

/**
 * How many times a short file write is tried before the session is blocked by it (goal-session/faults.ts): about a
 * minute of retries, where a worker's crash costs one attempt. A fault of the file system is never retried.
 */
export const FILE_ACTIVITY_ATTEMPTS = 10;

/**
 * A goal session's activities, on the host queue of the machine that holds its directory. `files`: short file
 * writes (projections, init, salvage, finish). `iterations`: the harness turn, as long as the iteration timeout,
 * waiting for its cancellation to complete. `limitedFileAttempts`: off in sessions of an older build, whose file
 * writes were retried without end.
 */
export function goalSessionActivities(
  input: GoalSessionInput,
  limitedFileAttempts: boolean,
): { files: Proxy; iterations: Proxy } {
  const retry = { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] };
  const fileRetry = limitedFileAttempts
    ? {
        ...retry,
        maximumAttempts: FILE_ACTIVITY_ATTEMPTS,
        nonRetryableErrorTypes: ['BadInput', SESSION_FILE_FAULT],
      }
    : retry;
  return {
    files: proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '2 minutes',
      // Short file writes: a worker that dies holding one is noticed as fast as a harness turn.
      heartbeatTimeout: input.heartbeatTimeoutMs,
      retry: fileRetry,
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
