// Pure rules of a work-item session: which events it takes, when it delivers, what it carries into a new run and
// which control requests it refuses. Runs inside workflow code: `import type` only.
import type {
  CarriedState,
  ControlReport,
  DeliverableEvent,
  WorkItemControlCommand,
  WorkItemStatus,
} from './messages';

export type WorkItemState = WorkItemStatus['status'];

/** How many delivered event ids a continue-as-new carries: enough to drop a redelivered webhook or poll. */
export const SEEN_LIMIT = 500;

export const CONTROL_COMMANDS: readonly WorkItemControlCommand[] = [
  'start',
  'pause',
  'resume',
  'stop',
  'cleanup',
];

/** A closing session takes no more events, and an id it already has is a redelivery. */
export function acceptsEvent(
  state: WorkItemState,
  seen: ReadonlySet<string>,
  event: DeliverableEvent,
): boolean {
  return state !== 'closing' && state !== 'closed' && !seen.has(event.id);
}

/** What delivery waits on: an active session with its pane, nothing blocking it, no close under way. */
export interface DeliveryView {
  state: WorkItemState;
  tmuxLost: string | null;
  blocked: string | null;
  queued: number;
  closing: boolean;
  /** A dialog in the pane waits for a human: pasting would answer it. */
  waiting?: string | null;
  /** A start is under way: its own turn goes first. */
  starting?: boolean;
  /** A budget is reached: no turn until a raise. */
  budget?: string | null;
}

export function canDeliver(view: DeliveryView): boolean {
  return (
    view.state === 'active' &&
    view.tmuxLost === null &&
    view.blocked === null &&
    view.queued > 0 &&
    !view.closing &&
    view.starting !== true &&
    (view.waiting ?? null) === null &&
    (view.budget ?? null) === null
  );
}

/** After a failed spawn: nothing waits, so the session ends; queued events keep it, parked, for the next start. */
export function afterFailedSpawn(queued: number): 'end' | 'park' {
  return queued === 0 ? 'end' : 'park';
}

/** A close that failed leaves the session as its last control left it. */
export function stateAfterFailedClose(lastControl: WorkItemControlCommand | null): 'active' | 'paused' {
  return lastControl === 'pause' ? 'paused' : 'active';
}

/** What an idle session carries into its next run: the newest seen ids only. */
export function carriedState(
  session: Omit<CarriedState, 'status' | 'seen'> & { state: WorkItemState; seen: Iterable<string> },
): CarriedState {
  return {
    status: session.state === 'paused' ? 'paused' : 'active',
    queue: session.queue,
    iteration: session.iteration,
    seen: [...session.seen].slice(-SEEN_LIMIT),
    tmuxLost: session.tmuxLost,
    lastControl: session.lastControl,
    ...(session.process ? { process: session.process } : {}),
    ...(session.waiting
      ? {
          waiting: session.waiting,
          paneWaitReason: session.paneWaitReason ?? null,
          ...(session.paneHoldsDelivery === false ? { paneHoldsDelivery: false } : {}),
        }
      : {}),
    ...(session.waitingFor ? { waitingFor: session.waitingFor } : {}),
    ...(session.budget ? { budget: session.budget } : {}),
  };
}

/** Why a control update is refused before it is accepted into the history; null to accept it. */
export function controlRefusal(workItem: string, command: unknown, state: WorkItemState): string | null {
  if (!CONTROL_COMMANDS.includes(command as WorkItemControlCommand)) {
    return `unknown control command '${String(command)}'`;
  }
  return state === 'closed' || state === 'closing' ? `${workItem} is already closed` : null;
}

/** Why a close update is refused; null to accept it (a close under way is joined, not refused). */
export function closeRefusal(workItem: string, state: WorkItemState): string | null {
  return state === 'closed' ? `${workItem} is already closed` : null;
}

/** A control report before anything happened; the handler fills in what its command did. */
export function blankControlReport(
  workItem: string,
  command: WorkItemControlCommand,
  queued: number,
): ControlReport {
  return {
    workItem,
    command,
    target: null,
    socket: null,
    spawned: false,
    resumed: false,
    lines: [],
    comment: null,
    queued,
  };
}

export const KICKOFF_EVENT_ID = 'kickoff:work-on';

/**
 * The first turn of a claude session that `start` (or the label gate) spawned on a new conversation:
 * `/the-loop:work-on <ref>`, so the spawned session never sits idle. Null when the session already had a turn, when
 * it resumed a conversation (a registered one carries on where its person left it), or for another harness; and
 * for a work item with a process graph, whose start node's turn (`--phase <node>`) is its kickoff instead.
 */
export function kickoffEvent(
  workItem: string,
  view: {
    harness: string | null;
    /** A work item with a process graph: its start node's turn is the kickoff (work-item/process.ts). */
    graph: boolean;
    spawned: boolean;
    resumed: boolean;
    iteration: number;
    seen: ReadonlySet<string>;
  },
): DeliverableEvent | null {
  const fresh = view.spawned && !view.resumed && view.iteration === 0;
  if (view.graph || view.harness !== 'claude' || !fresh || view.seen.has(KICKOFF_EVENT_ID)) return null;
  return { id: KICKOFF_EVENT_ID, text: `/the-loop:work-on ${workItem}`, source: 'kickoff' };
}

/** LoopStatus: `waiting` while a dialog waits for a human in an active session, the state otherwise. */
export function shownStatus(state: WorkItemState, waiting: string | null): string {
  return waiting !== null && state === 'active' ? 'waiting' : state;
}

/** Why a permission answer is refused before it is accepted into the history; null to accept it. */
export function permissionAnswerRefusal(
  workItem: string,
  view: { state: WorkItemState; waiting: string | null; paneWaitReason: string },
  answer: { authorized: boolean; by: string },
): string | null {
  if (!answer.authorized) return `${answer.by} may not answer ${workItem}'s permission prompts`;
  if (view.state === 'closed' || view.state === 'closing') return `${workItem} is closed`;
  if (view.waiting === null || view.paneWaitReason !== 'permission')
    return `no permission prompt waits in ${workItem}'s pane`;
  return null;
}
