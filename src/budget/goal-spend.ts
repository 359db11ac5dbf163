import { sep } from 'node:path';
import type { HistoryEntry } from '../session/schemas/state';
import { appendSpentTurns, turnKey, type SpentTurn } from './ledger';

/** Per goal session directory, the last iteration this process put in the ledger: a flush repeats the newest turns. */
const appended = new Map<string, number>();
const REMEMBERED_SESSIONS = 256;

/** `parent/child` for a child's directory (<root>/<parent>/children/<child>), else the session's id. */
export function goalSessionName(sessionDir: string): string {
  const parts = sessionDir.split(`${sep}children${sep}`);
  const first = parts[0] ?? sessionDir;
  return [first.slice(first.lastIndexOf(sep) + 1), ...parts.slice(1)].join('/');
}

/**
 * A goal session's turns that ran, into the state directory's spend ledger, as its projection writes them to
 * state.json. Each is appended once by this process; a worker that restarts may append the newest again, and
 * the ledger's readers count it once.
 */
export function recordGoalSpend(
  stateRoot: string,
  sessionDir: string,
  history: readonly HistoryEntry[],
): void {
  const after = appended.get(sessionDir) ?? 0;
  const session = goalSessionName(sessionDir);
  const turns: SpentTurn[] = history
    .filter((entry) => entry.iteration > after && entry.usage !== null)
    .map((entry) => ({
      at: entry.finished_at,
      kind: 'goal',
      session,
      turn: turnKey(sessionDir, entry.iteration),
      cost_usd: entry.usage?.cost_usd ?? 0,
      unpriced: false,
    }));
  if (turns.length === 0) return;
  appendSpentTurns(stateRoot, turns);
  appended.delete(sessionDir);
  appended.set(sessionDir, Math.max(after, ...history.map((entry) => entry.iteration)));
  for (const oldest of appended.keys()) {
    if (appended.size <= REMEMBERED_SESSIONS) break;
    appended.delete(oldest);
  }
}
