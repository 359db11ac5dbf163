import { patched, proxyActivities, workflowInfo, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { WorkItemActivities } from '../../activities/work-item';
import type { HostVerbCall } from '../../work-item/host/verbs';
import { causeMessage } from '../update-failure';
import { HOST_VERBS } from './patches';
import type {
  CloseReport,
  CloseRequest,
  CommentOutcome,
  ControlRequest,
  DroppedEvent,
  WorkItemSessionInput,
} from './messages';

/** The host activities as the workflow calls them. */
export type HostProxy = ActivityInterfaceFor<WorkItemActivities>;

/** A close, a cleanup, or an authorized closure of the item (cleanup per routing.cleanupOnClose). */
export type CloseKind = 'close' | 'cleanup' | 'closure';

/** The host activities of a work-item session, on the host queue of the machine that holds it. */
export function hostActivities(hostQueue: string): {
  host: HostProxy;
  turnHost: HostProxy;
  bestEffort: HostProxy;
} {
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

/** The keyword comment when the control asked for one, best effort: a failure is a warning, never a failed control. */
export async function keywordComment(
  bestEffort: HostProxy,
  workItem: string,
  request: ControlRequest,
): Promise<CommentOutcome | null> {
  if (!request.comment) return null;
  try {
    return await bestEffort.workItemComment({ workItem, command: request.command });
  } catch (error) {
    return { posted: false, warning: `could not comment: ${causeMessage(error)}`, url: null };
  }
}

/**
 * The host activity that closes the session the way `kind` asks. `dropped`: the events still queued, which no turn
 * will take; the host records each (`event.dropped`) and says how many.
 */
export function closeOnHost(
  host: HostProxy,
  kind: CloseKind,
  { workItem, request, dropped }: { workItem: string; request: CloseRequest; dropped: DroppedEvent[] },
): Promise<CloseReport> {
  if (kind === 'cleanup') return host.workItemCleanup({ workItem, dropped });
  if (kind === 'closure') return host.workItemClosure({ workItem, reason: request.reason, dropped });
  return host.workItemClose({ workItem, keepTmux: request.keepTmux, reason: request.reason, dropped });
}

/** The new session's registry record and directory, on the host that holds it. */
export function openOnHost(host: HostProxy, input: WorkItemSessionInput) {
  const { workflowId, runId } = workflowInfo();
  const { workItem, taskQueue, hostQueue, registration } = input;
  return host.workItemOpen({ workItem, workflowId, runId, taskQueue, hostQueue, registration });
}

/** A control command in the work item's record (who asked, through what). */
export function recordControlOnHost(host: HostProxy, workItem: string, request: ControlRequest) {
  const { command, by, via } = request;
  return host.workItemRecordControl({ workItem, command, by, via });
}

/** The activities that runs started before HOST_VERBS call for these updates. */
const OWN_ACTIVITY_BEFORE_HOST_VERBS: Record<string, 'workItemLinkPullRequest' | 'workItemRestart'> = {
  'workItem.linkPullRequest': 'workItemLinkPullRequest',
  'workItem.restart': 'workItemRestart',
};

/** An update that is one host operation (its host side in src/work-item/host/<verb>.ts), run on the host. */
export async function hostVerbOnHost<Req, Res>(
  host: HostProxy,
  update: UpdateDefinition<Res, [Req]>,
  workItem: string,
  request: Req,
): Promise<Res> {
  const own = OWN_ACTIVITY_BEFORE_HOST_VERBS[update.name];
  if (own !== undefined && !patched(HOST_VERBS)) {
    return (await host[own]({ ...(request as object), workItem } as never)) as Res;
  }
  // onHost's updates are the host verbs' (workflow.ts): the update's name picks the request's type
  const call = { verb: update.name, request } as HostVerbCall;
  return (await host.workItemHostVerb({ workItem, ...call })) as Res;
}
