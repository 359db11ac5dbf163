import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { WorkItemActivities } from '../activities/work-item';
import { causeMessage } from './update-failure';
import type { CommentOutcome } from './work-item-messages';

type Proxy = ActivityInterfaceFor<WorkItemActivities>;

/** The host activities of a work-item session, on the host queue of the machine that holds it. */
export function hostActivities(hostQueue: string): { host: Proxy; turnHost: Proxy; bestEffort: Proxy } {
  const retry = { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: ['WorkItemBadInput'] };
  return {
    host: proxyActivities<WorkItemActivities>({
      taskQueue: hostQueue,
      startToCloseTimeout: '5 minutes',
      scheduleToStartTimeout: '7 days',
      retry,
    }),
    // A delivered event is a turn: it completes when the agent's turn ends, heartbeated while the pane lives.
    turnHost: proxyActivities<WorkItemActivities>({
      taskQueue: hostQueue,
      startToCloseTimeout: '7 days',
      heartbeatTimeout: '1 minute',
      scheduleToStartTimeout: '7 days',
      retry,
    }),
    // One attempt, no waiting: the keyword comment.
    bestEffort: proxyActivities<WorkItemActivities>({
      taskQueue: hostQueue,
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 1 },
    }),
  };
}

/** The keyword comment, best effort: a failure is a warning in the report, never a failed control. */
export async function keywordComment(
  bestEffort: Proxy,
  input: Parameters<WorkItemActivities['workItemComment']>[0],
): Promise<CommentOutcome> {
  try {
    return await bestEffort.workItemComment(input);
  } catch (error) {
    return { posted: false, warning: `could not comment: ${causeMessage(error)}`, url: null };
  }
}
