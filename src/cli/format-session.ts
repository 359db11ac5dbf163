import { goalWaiting } from '../session/goal-waiting';
import { sinceText } from './inbox-lines';
import { readJsonIfExists } from '../session/json-file';
import { iterationPaths, sessionPaths } from '../session/paths';
import { resultFileSchema } from '../session/schemas/result';
import { sessionEventSchema, type SessionEvent } from '../session/schemas/event';
import { readLastJsonlWith } from '../session/jsonl';
import { sessionStatuses, type SessionStateFile, type SessionSummary } from '../session/schemas/state';
import { formatUsd } from '../pricing/money';
import { historyTotals } from '../session/history';
import { unpricedModelsOfState } from '../session/unpriced-models';

const clock = (iso: string) => iso.slice(11, 19);
const pad = (n: number | undefined) => String(n ?? 0).padStart(4, '0');

/** One human line per event for `loopy run` and `loopy events`. */
export function formatEvent(event: SessionEvent): string {
  const data = event.data ?? {};
  const at = `[${clock(event.ts)}]`;
  const it = `${pad(event.iteration)} ${event.routine_id ?? ''}`.trimEnd();
  switch (event.type) {
    case 'session_started':
      return `${at} session started (${String(data.harness ?? '')})`;
    case 'iteration_started':
      return `${at} ${it} started (${String(data.harness ?? '')})`;
    case 'iteration_finished':
    case 'iteration_recovered': {
      const verdict = data.success ? 'ok' : `failed: ${String(data.error ?? 'unknown error')}`;
      const goal = data.goal_met === undefined ? '' : ` · goal_met=${String(data.goal_met)}`;
      const recovered = event.type === 'iteration_recovered' ? ' (recovered)' : '';
      const denied = deniedNote(data.permission_denials);
      return `${at} ${it} ${verdict}${recovered} · ${formatUsd(Number(data.cost_usd ?? 0))} (total ${formatUsd(Number(data.total_cost_usd ?? 0))})${goal}${denied ? ` · ${denied}` : ''}`;
    }
    case 'iteration_abandoned':
      return `${at} ${it} abandoned: ${String(data.error ?? data.reason ?? 'the worker was lost')}`;
    case 'session_paused':
      return `${at} paused — the running iteration finishes, nothing new starts until resume`;
    case 'session_resumed':
      return `${at} resumed`;
    case 'stop_requested':
      return `${at} stop requested by ${String(data.by ?? 'user')}: ${String(data.reason ?? '')}`;
    case 'user_update':
      return `${at} update from the user received`;
    case 'session_stopped':
      return `${at} session stopped (${String(data.kind)}): ${String(data.reason ?? '')} — ${String(data.iterations ?? 0)} iterations, ${formatUsd(Number(data.cost_usd ?? 0))}`;
    case 'child_dispatched':
      return `${at} child ${String(data.child_session_id)} dispatched from child_requests/${String(data.request_file)}${data.max_cost_usd === null || data.max_cost_usd === undefined ? '' : ` (budget ${formatUsd(Number(data.max_cost_usd))})`}`;
    case 'child_finished':
      return `${at} child ${String(data.child_session_id)} ${String(data.status)}: ${String(data.outcome ?? '')} · ${formatUsd(Number(data.cost_usd ?? 0))} (total ${formatUsd(Number(data.total_cost_usd ?? 0))})`;
    case 'child_rejected':
      return `${at} child request ${String(data.request_file)} rejected: ${String(data.reason ?? '')}`;
    case 'session_blocked': {
      const where = typeof data.path === 'string' ? ` (${data.path})` : '';
      return `${at} blocked: ${String(data.reason ?? 'a file fault')}${where} — nothing runs until \`loopy resume\``;
    }
    case 'question_asked':
      return `${at} ${it} asked: ${String(data.question ?? '')} — waiting for \`loopy update\``;
    case 'permission_refused':
      return `${at} ${it} waiting: permission — ${typeof data.harness === 'string' ? data.harness : 'claude'} was refused ${String((data.tools as string[] | undefined)?.join(', ') ?? 'its tools')}`;
    case 'budget_reached':
      return `${at} waiting: budget — ${String(data.detail ?? '')}`;
    case 'conversation_reset':
      return `${at} ${it} conversation reset: ${String(data.reason ?? '')} (${String(data.from ?? '?')} → ${String(data.to ?? '?')})`;
    case 'projection_repaired':
      return data.events_rebuilt !== undefined
        ? `${at} events.jsonl had been deleted or cut short: rewritten whole from the workflow's histories (${String(data.events_rebuilt)} events)`
        : `${at} state.json had lost history entries: rewritten whole (${String(data.history_entries ?? 0)} entries)`;
    case 'session_moved':
      return `${at} moved from host ${String(data.from_host_id)} to host ${String(data.host_id)} (by ${String(data.by ?? 'user')})`;
    case 'move_refused':
      return `${at} move to host ${String(data.host_id)} refused: ${String(data.reason ?? '')}`;
    default:
      return `${at} ${event.type}${event.iteration !== undefined ? ` ${it}` : ''} ${JSON.stringify(data)}`;
  }
}

/**
 * `loopy list --status` takes the words state.json's `status` and the LoopStatus search attribute use, plus
 * `finished`: the name earlier versions listed control stops under, kept as a filter so old scripts still work.
 */
export const listStatusFilters = [...sessionStatuses, 'finished', 'waiting'] as const;
export type ListStatusFilter = (typeof listStatusFilters)[number];

/** What the list's status cell and filter read of a session's state. */
type ListedStatus = Pick<SessionSummary, 'status' | 'stop' | 'dispatch'>;

export function matchesListStatus(state: ListedStatus, wanted: ListStatusFilter): boolean {
  if (wanted === 'finished') return state.status === 'stopped' && state.stop.kind === 'control';
  if (wanted === 'waiting') return goalWaiting(state) !== null;
  return state.status === wanted;
}

/**
 * The list's STATUS cell: state.json's word, for a stopped session why (`stopped (control)`), and for one that waits
 * on a person what for (`waiting: blocked`), as `sessions list` says it of work items.
 */
export function listStatusCell(state: ListedStatus): string {
  const wait = goalWaiting(state);
  if (wait) return `waiting: ${wait.reason}`;
  return state.status === 'stopped' ? `stopped (${state.stop.kind ?? 'unknown'})` : state.status;
}

export function describeState(state: SessionStateFile): string {
  const active = state.dispatch.active_iteration;
  switch (state.status) {
    case 'stopped':
      return `stopped (${state.stop.kind ?? 'unknown'}): ${state.stop.reason ?? ''}`;
    case 'paused': {
      const { blocked, asked } = state.dispatch;
      if (!blocked && asked)
        return `paused, waiting for an answer: ${asked.question} — answer with \`loopy update ${state.session_id} <answer>\`, or \`loopy resume\``;
      if (!blocked) return `paused after iteration ${state.iteration}`;
      const turn = blocked.iteration === null ? '' : `; iteration ${blocked.iteration} waits`;
      return `paused, blocked: ${blocked.reason}${turn} — fix it, then run \`loopy resume\``;
    }
    case 'queued': {
      // every activity slot of its host's worker is busy: the step starts when one frees
      const step = active ? `iteration ${active.number} (${active.routine_id})` : "the session's set-up";
      const pausing = state.dispatch.paused ? '; paused after it' : '';
      return `queued: ${step} waits for a free activity slot on its host${pausing}`;
    }
    default:
      if (state.dispatch.paused && active)
        return `pausing: iteration ${active.number} (${active.routine_id}) finishes first`;
      if (state.stop.requested_by && active) return `stopping: iteration ${active.number} is being cancelled`;
      return active
        ? `running iteration ${active.number} (${active.routine_id})`
        : `running (iteration ${state.iteration})`;
  }
}

export function statusLines(
  sessionDir: string,
  goal: string,
  state: SessionStateFile,
  link: string | null,
): string[] {
  const { ok, failed } = historyTotals(state);
  const last = state.history.at(-1);
  const u = state.usage;
  return [
    `session     ${state.session_id}`,
    `status      ${describeState(state)}`,
    `goal        ${goal.trim().split('\n')[0] ?? ''}`,
    `directory   ${sessionDir}`,
    `iterations  ${state.iteration} (${ok} ok, ${failed} failed)`,
    `cost        ${formatUsd(u.total.cost_usd)}${unpricedNote(sessionDir, state)} (own ${formatUsd(u.own.cost_usd)}, children ${formatUsd(u.children.cost_usd)}) · tokens ${u.total.input_tokens} in / ${u.total.output_tokens} out`,
    ...(last
      ? [
          `last        ${pad(last.iteration)} ${last.routine_id} ${last.success ? 'ok' : `failed: ${last.error ?? ''}`}`,
        ]
      : []),
    ...lastTurnLines(sessionDir, last),
    ...conversationResetLines(sessionDir),
    ...(state.active_child_session_id ? [`child       ${state.active_child_session_id} (active)`] : []),
    ...(state.dispatch.refused
      ? [
          `refused     dispatch of iteration ${state.dispatch.refused.iteration} refused: ${state.dispatch.refused.unsettled_workers} orphan process(es) may still run (pids ${state.dispatch.refused.pids.join(', ')}); see ${state.dispatch.refused.salvage_file}`,
        ]
      : []),
    ...(state.dispatch.blocked?.path ? [`blocked at  ${state.dispatch.blocked.path}`] : []),
    ...waitingLines(state),
    ...(link ? [`web ui      ${link}`] : []),
  ];
}

/**
 * ` + unpriced (no price for gpt-x)` when a turn ran a model the price table lacks (its result.json names it): the
 * cost shown is then short by what those tokens cost, and says so instead of passing for the whole.
 */
function unpricedNote(sessionDir: string, state: SessionStateFile): string {
  const models = unpricedModelsOfState(sessionDir, state);
  return models.length === 0 ? '' : ` + unpriced (no price for ${models.join(', ')})`;
}

/** "2 tool calls denied (Write, Bash)" from an event's or result.json's permission_denials, else null. */
function deniedNote(value: unknown): string | null {
  const denials = value as { count?: unknown; tools?: unknown } | undefined;
  if (!denials || typeof denials.count !== 'number' || denials.count === 0) return null;
  const tools = Array.isArray(denials.tools) ? ` (${denials.tools.map(String).join(', ')})` : '';
  return `${denials.count} tool call${denials.count === 1 ? '' : 's'} denied${tools}`;
}

/** The last turn's harness conversation and refused tool calls, from its result.json (absent before it is written). */
function lastTurnLines(
  sessionDir: string,
  last: { iteration: number; routine_id: string } | undefined,
): string[] {
  if (!last) return [];
  let result;
  try {
    result = readJsonIfExists(
      iterationPaths(sessionDir, last.iteration, last.routine_id).result,
      resultFileSchema,
    );
  } catch {
    return [];
  }
  const denied = deniedNote(result?.permission_denials);
  return [
    ...(result?.harness_session_id ? [`harness id  ${result.harness_session_id}`] : []),
    ...(denied ? [`denied      ${denied} in the last iteration — see the harness's permission mode`] : []),
  ];
}

/** `loopy status`: since when the session has waited on a person, and for what, as `sessions show` says it. */
function waitingLines(state: SessionStateFile): string[] {
  const wait = goalWaiting(state);
  if (!wait) return [];
  return [`waiting     ${wait.reason} ${sinceText(wait.since, Date.now())}: ${wait.detail}`];
}

/** `loopy status`: the last time a `conversation: continue` turn had to open a new conversation, and why. */
function conversationResetLines(sessionDir: string): string[] {
  let reset: SessionEvent | undefined;
  try {
    // only the lines naming the type are parsed: events.jsonl grows with every turn
    reset = readLastJsonlWith(
      sessionPaths(sessionDir).events,
      sessionEventSchema,
      '"type":"conversation_reset"',
      (e) => e.type === 'conversation_reset',
    );
  } catch {
    return []; // an unreadable events.jsonl: `loopy events` names it
  }
  if (!reset) return [];
  return [
    `conversation reset at iteration ${String(reset.iteration ?? '?')}: ${String(reset.data?.reason ?? '')}`,
  ];
}
