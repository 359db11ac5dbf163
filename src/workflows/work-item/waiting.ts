// What a work-item session waits on a person for, derived from its state. Runs inside workflow code: `import type`
// only.
import type { PaneWaitReason, SessionWaiting, WaitingReason } from './messages';
import type { WorkItemState } from './rules';

export interface WaitingView {
  state: WorkItemState;
  /** The dialog the pane waits at, and what kind it is. */
  pane: { message: string; reason: PaneWaitReason } | null;
  /** The gate the process graph waits at, with its question. */
  gate: { node: string; details: string } | null;
  /** Why delivery stopped: a lost tmux server, a failed delivery or spawn. */
  tmuxLost: string | null;
  blocked: string | null;
  /** The budget reached, what was spent of what. */
  budget?: string | null;
}

/**
 * The wait that matters most, or null. A fault comes first (nothing moves until someone acts), then the pane's
 * dialog (the harness is held mid-turn), then a reached budget (between turns), then a gate. A closing or closed session waits for nobody, and a paused one
 * only for a fault: its person paused it.
 */
export function waitingOf(view: WaitingView): { reason: WaitingReason; detail: string } | null {
  if (view.state === 'closing' || view.state === 'closed' || view.state === 'opening') return null;
  const fault = view.tmuxLost ?? view.blocked;
  if (fault !== null) return { reason: 'blocked', detail: oneLine(fault) };
  if (view.state === 'paused') return null;
  if (view.pane) return { reason: view.pane.reason, detail: oneLine(view.pane.message) };
  if (view.budget) return { reason: 'budget', detail: oneLine(view.budget) };
  if (view.gate) return { reason: 'gate', detail: oneLine(view.gate.details) };
  return null;
}

/** The wait now, keeping `since` from the previous one while the wait is the same. */
export function continuedWaiting(
  previous: SessionWaiting | null,
  now: { reason: WaitingReason; detail: string } | null,
  at: string,
): SessionWaiting | null {
  if (now === null) return null;
  if (previous && previous.reason === now.reason && previous.detail === now.detail) return previous;
  return { ...now, since: at };
}

const MAX_DETAIL = 300;

/** One line, at most MAX_DETAIL characters: what a list or a notification can show. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}
