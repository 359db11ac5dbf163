import type { DeniedDispatch, SessionSummary } from './schemas/state';

/**
 * What a goal session waits on a person for: a fault blocks it (paused) until someone fixes it and resumes, a turn's
 * reply ended on a question, answered with `loopy update`, or the fleet's budget is spent, answered with
 * `the-loop budget raise`, or a turn failed because its agent was refused its tool calls.
 */
export interface GoalWaiting {
  reason: 'blocked' | 'question' | 'budget' | 'permission';
  detail: string;
  since: string;
}

/** What a turn's refused tool calls ask of a person, in one line. */
export function deniedDetail(denied: DeniedDispatch): string {
  const calls = denied.count === 1 ? 'a call' : `${denied.count} calls`;
  const agent = denied.harness ?? 'claude';
  return `iteration ${denied.iteration}: ${agent} was refused ${calls} of ${denied.tools.join(', ')} — allow the tool (its permission mode or allowed tools) and \`loopy resume\`, or answer with \`loopy update\``;
}

/** The goal session's wait, from its state.json alone; null when it waits for nobody. */
export function goalWaiting(state: Pick<SessionSummary, 'status' | 'dispatch'>): GoalWaiting | null {
  if (state.status !== 'paused') return null;
  const { blocked, asked, budget, denied } = state.dispatch;
  if (!blocked && budget) return { reason: 'budget', detail: budget.detail, since: budget.at };
  if (!blocked && denied) return { reason: 'permission', detail: deniedDetail(denied), since: denied.at };
  if (!blocked && asked)
    return { reason: 'question', detail: asked.question.replace(/\s+/g, ' '), since: asked.at };
  if (!blocked) return null;
  const where = blocked.path ? ` (${blocked.path})` : '';
  return { reason: 'blocked', detail: `${blocked.reason}${where}`.replace(/\s+/g, ' '), since: blocked.at };
}
