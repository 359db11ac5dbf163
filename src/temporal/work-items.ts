import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import {
  answerPermissionUpdate,
  budgetRaisedSignal,
  closeUpdate,
  controlUpdate,
  deliverEventSignal,
  itemClosedSignal,
  openedUpdate,
  statusQuery,
  WORK_ITEM_WORKFLOW_TYPE,
  workItemWorkflowId,
  type CloseReport,
  type CloseRequest,
  type ControlReport,
  type ControlRequest,
  type DeliverableEvent,
  type OpenReport,
  type PermissionAnswer,
  type PermissionAnswerReport,
  type WorkItemSessionInput,
} from '../workflows/work-item/messages';
import { LoopKind, LoopWorkItem, LoopHarness } from '../workflows/search-attributes';
import { canonicalRef } from '../work-item/ref';
import { updateToEnd, updateWithStartToEnd } from './update-to-end';
import { queryWhenAnswered } from './query-when-answered';
import type { ProcessGraph } from '../config/process-graph';
import {
  answerGateUpdate,
  nodeOutcomeUpdate,
  type GateAnswer,
  type NodeOutcome,
  type NodeReport,
} from '../workflows/work-item/process-messages';

/** Where work-item workflows run: the shared queue, and the host queue of the machine holding the session. */
export interface WorkItemQueues {
  taskQueue: string;
  hostQueue: string;
  /** The process graph a work item starting now is frozen with (config `process:`). */
  graph?: ProcessGraph;
}

export class AlreadyRegisteredError extends Error {
  constructor(readonly workItem: string) {
    super(
      `${workItem} already has an active session (workflow ${workItemWorkflowId(workItem)}): one work item ↔ one active session — --force replaces it`,
    );
    this.name = 'AlreadyRegisteredError';
  }
}

/** The failure message a workflow update carries, without the SDK's wrapping. */
export function updateFailureMessage(error: unknown): string {
  if (error instanceof WorkflowUpdateFailedError && error.cause) return error.cause.message;
  return (error as Error).message;
}

function startOptions(workItem: string, queues: WorkItemQueues, harness: string) {
  return {
    taskQueue: queues.taskQueue,
    workflowId: workItemWorkflowId(workItem),
    typedSearchAttributes: [
      { key: LoopKind, value: 'work-item' },
      { key: LoopWorkItem, value: workItem },
      { key: LoopHarness, value: harness },
    ],
    staticSummary: `work item ${workItem}`,
  };
}

function input(
  workItem: string,
  queues: WorkItemQueues,
  registration: WorkItemSessionInput['registration'],
): WorkItemSessionInput {
  return {
    workItem,
    hostQueue: queues.hostQueue,
    taskQueue: queues.taskQueue,
    registration,
    ...(queues.graph ? { graph: queues.graph } : {}),
  };
}

/**
 * `sessions register`: starts `work-item/<ref>` with conflict policy FAIL (exactly one of many racing
 * registrations wins; the others get AlreadyRegisteredError), or TERMINATE_EXISTING with `force`, and waits
 * until the registry record is written.
 */
export async function registerWorkItem(
  client: Client,
  queues: WorkItemQueues,
  registration: NonNullable<WorkItemSessionInput['registration']> & { workItem: string; force: boolean },
): Promise<OpenReport> {
  const workItem = canonicalRef(registration.workItem);
  let handle: WorkflowHandle;
  try {
    handle = await client.workflow.start(WORK_ITEM_WORKFLOW_TYPE, {
      ...startOptions(workItem, queues, registration.harness),
      args: [
        input(workItem, queues, {
          harness: registration.harness,
          conversationId: registration.conversationId,
          cwd: registration.cwd,
        }),
      ],
      workflowIdConflictPolicy: registration.force
        ? WorkflowIdConflictPolicy.TERMINATE_EXISTING
        : WorkflowIdConflictPolicy.FAIL,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw new AlreadyRegisteredError(workItem);
    throw error;
  }
  return updateToEnd(handle, openedUpdate, []);
}

/** The running session's handle, or null when no `work-item/<ref>` workflow is running. */
export async function runningWorkItem(client: Client, workItem: string): Promise<WorkflowHandle | null> {
  const handle = client.workflow.getHandle(workItemWorkflowId(canonicalRef(workItem)));
  try {
    const description = await handle.describe();
    return description.status.name === 'RUNNING' ? handle : null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/**
 * A control verb. `start` opens a session when none runs (USE_EXISTING: a concurrent start joins the same
 * one); the other verbs act on a running session and return null when there is none.
 */
export async function controlWorkItem(
  client: Client,
  queues: WorkItemQueues,
  workItemText: string,
  request: ControlRequest,
  harness = 'claude',
): Promise<ControlReport | null> {
  const workItem = canonicalRef(workItemText);
  if (request.command === 'start') {
    // one request: the session takes the start before any event sent after it (it then waits for the start's turn)
    return updateWithStartToEnd(
      client,
      controlUpdate,
      [request],
      () =>
        new WithStartWorkflowOperation(WORK_ITEM_WORKFLOW_TYPE, {
          ...startOptions(workItem, queues, harness),
          args: [input(workItem, queues, null)],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
    );
  }
  const handle = await runningWorkItem(client, workItem);
  if (!handle) return null;
  return updateToEnd(handle, controlUpdate, [request]);
}

/**
 * The GitHub bridge's delivery: signals the running session (queued while paused, delivered in order), or —
 * with `allowStart` — opens one with signalWithStart. Returns whether a session received it.
 */
export async function deliverToWorkItem(
  client: Client,
  queues: WorkItemQueues,
  workItemText: string,
  event: DeliverableEvent,
  allowStart: boolean,
): Promise<'signalled' | 'started' | 'not-running'> {
  const workItem = canonicalRef(workItemText);
  const handle = await runningWorkItem(client, workItem);
  if (handle) {
    await handle.signal(deliverEventSignal, event);
    return 'signalled';
  }
  if (!allowStart) return 'not-running';
  await client.workflow.signalWithStart(WORK_ITEM_WORKFLOW_TYPE, {
    ...startOptions(workItem, queues, 'claude'),
    args: [input(workItem, queues, null)],
    signal: deliverEventSignal,
    signalArgs: [event],
  });
  return 'started';
}

/** Closes a running session and waits for the close report; null when none runs. */
export async function closeWorkItem(
  client: Client,
  workItemText: string,
  request: CloseRequest,
): Promise<CloseReport | null> {
  const handle = await runningWorkItem(client, workItemText);
  if (!handle) return null;
  return updateToEnd(handle, closeUpdate, [request]);
}

/** The work item itself ended upstream: a durable signal, acted on even if no worker runs right now. */
export async function signalItemClosed(
  client: Client,
  workItemText: string,
  reason: string,
  authorized = false,
): Promise<boolean> {
  const handle = await runningWorkItem(client, workItemText);
  if (!handle) return false;
  await handle.signal(itemClosedSignal, { keepTmux: null, reason, ...(authorized ? { authorized } : {}) });
  return true;
}

/**
 * Answers the gate a running work item waits at: its status names the gate, and the update's validator refuses
 * the answer when that gate is no longer the one waiting (answered meanwhile) or the answerer is not authorized.
 * Null when no session runs.
 */
export async function answerWorkItemGate(
  client: Client,
  workItemText: string,
  answer: Omit<GateAnswer, 'gate'>,
): Promise<NodeReport | null> {
  const handle = await runningWorkItem(client, workItemText);
  if (!handle) return null;
  const status = await queryWhenAnswered(handle, statusQuery);
  const gate = status.waitingAt ?? status.node ?? '';
  return updateToEnd(handle, answerGateUpdate, [{ ...answer, gate }]);
}

/** Answers the permission prompt a running work item's pane holds; null when no session runs. */
export async function answerWorkItemPermission(
  client: Client,
  workItemText: string,
  answer: PermissionAnswer,
): Promise<PermissionAnswerReport | null> {
  const handle = await runningWorkItem(client, workItemText);
  if (!handle) return null;
  return updateToEnd(handle, answerPermissionUpdate, [answer]);
}

/** Tells a running work item's session that a budget was raised; false when no session runs. */
export async function tellBudgetRaised(client: Client, workItem: string): Promise<boolean> {
  const handle = await runningWorkItem(client, workItem);
  if (!handle) return false;
  await handle.signal(budgetRaisedSignal);
  return true;
}

/**
 * Reports the outcome of the agent node a running work item is at (the node named, or the current one): the
 * update's validator refuses it when the work item is not at that agent node. Null when no session runs.
 */
export async function reportWorkItemOutcome(
  client: Client,
  workItemText: string,
  report: Omit<NodeOutcome, 'node'> & { node: string | null },
): Promise<NodeReport | null> {
  const handle = await runningWorkItem(client, workItemText);
  if (!handle) return null;
  const node = report.node ?? (await queryWhenAnswered(handle, statusQuery)).node ?? '';
  return updateToEnd(handle, nodeOutcomeUpdate, [{ ...report, node }]);
}
