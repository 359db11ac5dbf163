/**
 * Messages of the work-item session workflow, defined once with their types and shared by the workflow, the
 * worker, the CLI, the GitHub bridge and the tests. No Node built-ins: this file is bundled into workflows.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ProcessGraph } from '../../config/process-graph';
import type { ProcessPointer } from './process-messages';

export { workItemWorkflowId } from './ids';

export const WORK_ITEM_WORKFLOW_TYPE = 'workItemSession';

export type WorkItemHarnessName = 'claude' | 'cursor';
export type WorkItemControlCommand = 'start' | 'pause' | 'resume' | 'stop' | 'cleanup';

export interface WorkItemSessionInput {
  /** Canonical ref, e.g. `github:octo/repo#15` (see src/work-item/ref.ts canonicalRef). */
  workItem: string;
  /** The host queue of the machine that holds this session's directory, tmux and checkout. */
  hostQueue: string;
  /** The shared workflow queue, recorded in the session directory. */
  taskQueue: string;
  /** `sessions register`: the conversation to resume; null when a start or an event opens the session. */
  registration: { harness: WorkItemHarnessName; conversationId: string; cwd: string } | null;
  /**
   * Legacy, ignored: runs started before the storage became the host worker's setting (routing.registryDir,
   * state.root) carry the CLI's old --registry-dir / --portable-dir here. New runs leave them out.
   */
  registryDir?: string | null;
  portableDir?: string | null;
  /** The process graph, frozen when the work item starts; absent in runs an older client started. */
  graph?: ProcessGraph;
  /** Present only when the workflow continued as new. */
  carried?: CarriedState;
}

export interface CarriedState {
  status: 'active' | 'paused';
  queue: DeliverableEvent[];
  iteration: number;
  seen: string[];
  tmuxLost: string | null;
  lastControl: WorkItemControlCommand | null;
  /** Where the work item is in its graph (absent in older runs). */
  process?: ProcessPointer;
  /** The dialog the pane waits at for a human (absent in older runs, which lost it across continue-as-new). */
  waiting?: string | null;
  /** What kind of dialog `waiting` is (absent: a permission prompt, the only kind older runs knew). */
  paneWaitReason?: PaneWaitReason | null;
  /** Whether `waiting` holds delivery back (absent: it does, a dialog). */
  paneHoldsDelivery?: boolean;
  /** The wait under way, with since when (absent in older runs). */
  waitingFor?: SessionWaiting | null;
  /** The budget reached, what was spent of what (absent: none, or an older run). */
  budget?: string | null;
}

/**
 * Why a session needs a person. `permission`: the harness asks to run a tool; `question`: it asked and ended its turn
 * (or a dialog other than a permission prompt waits); `gate`: a process-graph gate waits for its answer; `blocked`:
 * a fault stops delivery until someone acts; `stuck`: no turn progress for a while; `budget`: the budget is spent.
 */
export type WaitingReason = 'permission' | 'question' | 'gate' | 'blocked' | 'stuck' | 'budget';

/** A session's wait for a person: why, what is asked (one line), and since when (ISO time). */
export interface SessionWaiting {
  reason: WaitingReason;
  detail: string;
  since: string;
}

/** One event for the session: pasted verbatim into the pane, recorded as an iteration (prompt.txt). */
export interface DeliverableEvent {
  /** Idempotency key (e.g. the webhook delivery id or `comment:<id>`); a repeated id is dropped. */
  id: string;
  text: string;
  /** Where it came from, for the event log: `webhook`, `poller`, `cli`, … */
  source: string;
}

export interface ControlRequest {
  command: WorkItemControlCommand;
  /** Who asked (a GitHub login, or the local user). */
  by: string;
  via: 'cli' | 'comment' | 'closure' | 'board';
  /** Post the keyword comment (best effort). */
  comment: boolean;
}

export interface CommentOutcome {
  posted: boolean;
  warning: string | null;
  url: string | null;
}

export interface ControlReport {
  workItem: string;
  command: WorkItemControlCommand;
  /** The tmux target (start), e.g. `loop-github-octo-repo-15-abc123` on `socket`. */
  target: string | null;
  socket: string | null;
  spawned: boolean;
  resumed: boolean;
  /** Human-readable lines of what happened (stop, cleanup). */
  lines: string[];
  comment: CommentOutcome | null;
  queued: number;
}

export interface CloseRequest {
  /** null: routing.tmux.keepSessionOnClose. */
  keepTmux: boolean | null;
  reason: string;
  /**
   * The item itself closed by a user with write access, or merged: cleanup's graph transition, disarmed, and
   * local resources released per routing.cleanupOnClose. Absent: a plain close.
   */
  authorized?: boolean;
}

/** An event still queued when the session closed: no turn will take it. */
export interface DroppedEvent {
  id: string;
  text: string;
  source: string;
}

export interface CloseReport {
  workItem: string;
  lines: string[];
  endedLiveSession: boolean;
  removedCheckout: string | null;
  tmuxKept: boolean;
}

export interface LinkRequest {
  /** The pull request to link, in any form a work-item ref takes (src/work-item/ref.ts). */
  pullRequest: string;
}

export interface LinkReport {
  workItem: string;
  pullRequest: string;
  alreadyRecorded: boolean;
  note: string | null;
}

export interface EnvMismatchReport {
  name: string;
  problem: 'differs' | 'missing' | 'held';
  expected?: string;
}

export interface RestartRequest {
  /** Report what a restart would do, and do nothing. */
  dryRun: boolean;
}

export interface RestartReport {
  workItem: string;
  outcome: 'restarted' | 'would-restart' | 'skipped' | 'mismatch' | 'unverified';
  reason: string | null;
  target: string | null;
  pid: number | null;
  mismatches: EnvMismatchReport[];
}

export interface OpenReport {
  workItem: string;
  workflowId: string;
  runId: string;
  sessionDir: string;
  harness: WorkItemHarnessName;
  conversationId: string | null;
  cwd: string | null;
  warnings: string[];
}

export interface WorkItemStatus {
  workItem: string;
  status: 'opening' | 'active' | 'paused' | 'closing' | 'closed';
  queued: number;
  delivered: number;
  iteration: number;
  tmuxLost: string | null;
  blocked: string | null;
  lastControl: WorkItemControlCommand | null;
  /** What the pane waits on a human for (a permission prompt): nothing is pasted meanwhile. Absent: older run. */
  waiting?: string | null;
  /** The process graph's current node, and the gate it waits at (null: not waiting); absent in older runs. */
  node?: string | null;
  waitingAt?: string | null;
  /** Whatever the session waits on a person for, with its reason and since when; absent in older runs. */
  waitingFor?: SessionWaiting | null;
}

/** The kinds of dialog a pane waits at. */
export type PaneWaitReason = 'permission' | 'question' | 'stuck';

/** Sent by the worker that hosts the pane: a dialog waits for a human (`message`), or (null) no longer does. */
export interface PaneWaiting {
  message: string | null;
  /** Absent from older workers: a permission prompt. */
  reason?: PaneWaitReason;
  /**
   * Absent (older workers) or true: a dialog shows, and pasting would answer it, so nothing is delivered. False: the
   * harness asked in its reply and waits at its input box, where the next event is the answer.
   */
  holdsDelivery?: boolean;
}

/** A person's answer to the permission prompt a session's pane shows. */
export interface PermissionAnswer {
  decision: 'allow' | 'deny';
  /** With deny: what claude is told instead of running the tool. */
  reason: string | null;
  /** With allow: the rule goes into the session's allowed tools, so the same request is not asked again. */
  always?: boolean;
  by: string;
  via: 'cli' | 'comment' | 'slack' | 'board';
  /** Checked where the answer came in (keyword authorization, the local user); refused by the validator if not. */
  authorized: boolean;
}

export interface PermissionAnswerReport {
  workItem: string;
  decision: 'allow' | 'deny';
  /** What the prompt asked. */
  asked: string;
  by: string;
}

/** The GitHub bridge (and the CLI) deliver an event: durable even while no worker runs; queued while paused. */
export const deliverEventSignal = defineSignal<[DeliverableEvent]>('workItem.deliverEvent');
/** The work item itself ended (issue closed, or the PR that is the work item merged/closed): auto-close. */
export const itemClosedSignal = defineSignal<[CloseRequest]>('workItem.itemClosed');
/** Resolves once the registry record is written; fails when opening failed. */
export const openedUpdate = defineUpdate<OpenReport, []>('workItem.opened');
export const controlUpdate = defineUpdate<ControlReport, [ControlRequest]>('workItem.control');
export const closeUpdate = defineUpdate<CloseReport, [CloseRequest]>('workItem.close');
// A host verb's update carries its name as a literal type too: it keys the `workItemHostVerb` activity's request.
export const linkPullRequestUpdate = defineUpdate<LinkReport, [LinkRequest], 'workItem.linkPullRequest'>(
  'workItem.linkPullRequest',
);
export const restartUpdate = defineUpdate<RestartReport, [RestartRequest], 'workItem.restart'>(
  'workItem.restart',
);
export const paneWaitingSignal = defineSignal<[PaneWaiting]>('workItem.paneWaiting');
/** Answers the permission prompt the pane holds (validator: authorized, a prompt waits); first answer wins. */
export const answerPermissionUpdate = defineUpdate<PermissionAnswerReport, [PermissionAnswer]>(
  'workItem.answerPermission',
);
export const statusQuery = defineQuery<WorkItemStatus>('workItem.status');
/** A budget was raised (`the-loop budget raise`): a session held at one tries its next turn, which checks again. */
export const budgetRaisedSignal = defineSignal('workItem.budgetRaised');
