import type { SessionStateFile } from './schemas/state';

/**
 * What a goal session waits on a person for: a fault blocks it (paused) until someone fixes it and resumes, or a
 * turn's reply ended on a question, answered with `loopy update`.
 */
export interface GoalWaiting {
  reason: 'blocked' | 'question';
  detail: string;
  since: string;
}

/** The goal session's wait, from its state.json alone; null when it waits for nobody. */
export function goalWaiting(state: SessionStateFile): GoalWaiting | null {
  if (state.status !== 'paused') return null;
  const { blocked, asked } = state.dispatch;
  if (!blocked && asked)
    return { reason: 'question', detail: asked.question.replace(/\s+/g, ' '), since: asked.at };
  if (!blocked) return null;
  const where = blocked.path ? ` (${blocked.path})` : '';
  return { reason: 'blocked', detail: `${blocked.reason}${where}`.replace(/\s+/g, ' '), since: blocked.at };
}
