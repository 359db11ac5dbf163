import type { SessionStateFile } from './schemas/state';

/** What a goal session waits on a person for: a fault blocks it (paused) until someone fixes it and resumes. */
export interface GoalWaiting {
  reason: 'blocked';
  detail: string;
  since: string;
}

/** The goal session's wait, from its state.json alone; null when it waits for nobody. */
export function goalWaiting(state: SessionStateFile): GoalWaiting | null {
  const blocked = state.status === 'paused' ? state.dispatch.blocked : null;
  if (!blocked) return null;
  const where = blocked.path ? ` (${blocked.path})` : '';
  return { reason: 'blocked', detail: `${blocked.reason}${where}`.replace(/\s+/g, ' '), since: blocked.at };
}
