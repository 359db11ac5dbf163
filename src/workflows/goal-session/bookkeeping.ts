// Pure turn bookkeeping of a goal session: what a turn is called, which conversation it continues, and what its
// end adds to the state and the event log. Runs inside workflow code: no Node built-ins, no workflow APIs.
import { questionOf } from '../../session/reply-question';
import type { Routine } from '../../session/routine-schedule';
import type { SessionEventType } from '../../session/schemas/event';
import type { HistoryEntry } from '../../session/schemas/state';
import { addUsage, emptyUsage } from '../../session/usage-math';
import type {
  Flush,
  GoalSessionInput,
  IterationOutcome,
  IterationRequest,
  SessionStateFile,
  Usage,
} from './types';

/** The state of a session that has not started its first turn. */
export function newSessionState(sessionId: string, startedAt: string): SessionStateFile {
  return {
    schema_version: 1,
    session_id: sessionId,
    status: 'starting',
    iteration: 0,
    dispatch: { active_iteration: null, paused: false, next_routine_id: null },
    history: [],
    stop: { kind: null, reason: null, requested_by: null, at: null },
    active_child_session_id: null,
    usage: { own: emptyUsage(), children: emptyUsage(), total: emptyUsage() },
    consecutive_failures: 0,
    started_at: startedAt,
    updated_at: startedAt,
  };
}

/** The activity's summary in the Web UI: `0007 review · claude`. */
export function turnSummary(iteration: number, routineId: string, harness: string): string {
  return `${String(iteration).padStart(4, '0')} ${routineId} · ${harness}`;
}

/** The running turn in the Web UI's current details: `iteration 7 · review · claude`. */
export function turnDetails(iteration: number, routineId: string, harness: string): string {
  return `iteration ${iteration} · ${routineId} · ${harness}`;
}

/**
 * The conversation a turn runs in: none for a routine that starts fresh; the routine's last one, resumed; or a new
 * one (`newId` is only called then, so a workflow's random sequence is used once per new conversation).
 */
export function conversationFor(
  routine: Pick<Routine, 'harness_options'>,
  known: string | undefined,
  newId: () => string,
): { id: string; resume: boolean } | null {
  if (routine.harness_options.conversation !== 'continue') return null;
  return known ? { id: known, resume: true } : { id: newId(), resume: false };
}

/** The harness turn's activity input: the session's own fields and this turn's. */
export function iterationRequest(
  input: GoalSessionInput,
  turn: Pick<IterationRequest, 'iteration' | 'routine' | 'conversation'>,
  flush: Flush,
  remainingBudgetUsd: number | null,
): IterationRequest {
  return {
    flush,
    input: {
      sessionId: input.sessionId,
      sessionDir: input.sessionDir,
      cwd: input.cwd,
      goal: input.goal,
      harness: input.harness,
      harnessCommand: input.harnessCommand,
      iterationTimeoutMs: input.iterationTimeoutMs,
    },
    iteration: turn.iteration,
    routine: turn.routine,
    conversation: turn.conversation,
    remainingBudgetUsd,
  };
}

/** A turn as it ended: with the activity's outcome, or without one and with why. */
export interface EndedTurn {
  iteration: number;
  routine: Pick<Routine, 'id' | 'harness_options'>;
  /** When the workflow dispatched it: the history's start when the outcome carries none. */
  dispatchedAt: string;
  /** Now, when the workflow records it: the history's finish when the outcome carries none. */
  recordedAt: string;
  outcome: IterationOutcome | null;
  /** Why there is no outcome (a failed, cancelled or salvaged turn). */
  failure: string | null;
  /** The conversation the turn was asked to run in (conversationFor); absent: none. */
  conversation?: { id: string; resume: boolean } | null;
}

/** Why a turn asked to resume its routine's conversation ran in a new one: the harness found none to resume. */
export const CONVERSATION_RESET_REASON =
  'the harness could not resume the conversation (it had no message yet, or was made in another directory): the turn ran in a new one';

/** The routine's conversation, replaced by a new one in this turn: from, to; null when it was resumed (or fresh). */
export function conversationReset(
  turn: Pick<EndedTurn, 'conversation' | 'outcome'>,
): { from: string; to: string } | null {
  const asked = turn.conversation;
  const ran = turn.outcome?.conversationId;
  if (!asked?.resume || !ran || ran === asked.id) return null;
  return { from: asked.id, to: ran };
}

/** What an ended turn changes: the ledger, the history, the failure streak, the routine's conversation, the event. */
export interface TurnBook {
  usage: { own: Usage; total: Usage };
  entry: HistoryEntry;
  consecutiveFailures: number;
  /** The conversation id the routine continues next time; null: keep what is known. */
  conversationId: string | null;
  event: { type: SessionEventType; data: Record<string, unknown> };
}

export function bookTurn(
  before: Pick<SessionStateFile, 'usage' | 'consecutive_failures'>,
  turn: EndedTurn,
): TurnBook {
  const { outcome } = turn;
  const usage = outcome?.usage ?? null;
  const own = usage ? addUsage(before.usage.own, usage) : before.usage.own;
  const total = usage ? addUsage(own, before.usage.children) : before.usage.total;
  const success = outcome?.result.success ?? false;
  const error = outcome ? outcome.result.error : turn.failure;
  const abandoned = outcome?.abandoned ?? null;
  return {
    usage: { own, total },
    entry: {
      iteration: turn.iteration,
      routine_id: turn.routine.id,
      started_at: outcome?.startedAt ?? turn.dispatchedAt,
      finished_at: outcome?.finishedAt ?? turn.recordedAt,
      success,
      error,
      harness_run_id: outcome?.result.harness_run_id ?? null,
      usage,
      recovered: outcome?.recovered ?? false,
    },
    consecutiveFailures: success ? 0 : before.consecutive_failures + 1,
    conversationId:
      outcome?.conversationId && turn.routine.harness_options.conversation === 'continue'
        ? outcome.conversationId
        : null,
    event: {
      type: abandoned
        ? 'iteration_abandoned'
        : outcome?.recovered
          ? 'iteration_recovered'
          : 'iteration_finished',
      data: {
        success,
        error,
        ...(abandoned ? { salvage_file: abandoned.salvageFile, salvage_reports: abandoned.reports } : {}),
        cost_usd: usage?.cost_usd ?? 0,
        total_cost_usd: total.cost_usd,
        ...(outcome?.result.harness_session_id
          ? { harness_session_id: outcome.result.harness_session_id }
          : {}),
        ...(outcome?.result.permission_denials
          ? { permission_denials: outcome.result.permission_denials }
          : {}),
        ...(outcome?.goalCheck ? { goal_met: outcome.goalCheck.goal_met } : {}),
        ...(outcome?.controlError ? { control_error: outcome.controlError } : {}),
      },
    },
  };
}

/** The ended turn's book into the state: usage, history, failure streak; no turn is active any more. */
export function applyTurnBook(state: SessionStateFile, book: TurnBook): void {
  state.usage.own = book.usage.own;
  state.usage.total = book.usage.total;
  state.history.push(book.entry);
  state.consecutive_failures = book.consecutiveFailures;
  state.dispatch.active_iteration = null;
}

/** control.json's stop switch, read after the turn; null to go on. */
export function controlStop(outcome: IterationOutcome | null): { kind: 'control'; reason: string } | null {
  if (outcome?.control.state !== 'stopped') return null;
  return { kind: 'control', reason: outcome.control.reason?.trim() || 'stopped through control.json' };
}

/** The tool calls a failed turn was refused (claude's permission_denials), when it asked for no stop; else null. */
export function permissionRefused(
  outcome: IterationOutcome | null,
): { tools: string[]; count: number } | null {
  const denials = outcome?.result.permission_denials;
  if (!outcome || outcome.result.success || !denials || outcome.control.state !== 'running') return null;
  return { tools: denials.tools, count: denials.count };
}

/**
 * The question a turn's reply ended on, when it did and the turn asked for no stop: the session waits for its answer.
 * Null for a failed turn, a turn that asked to stop, or a reply that asks nothing.
 */
export function questionAsked(outcome: IterationOutcome | null): string | null {
  if (!outcome?.result.success || outcome.control.state !== 'running') return null;
  return questionOf(outcome.result.text);
}
