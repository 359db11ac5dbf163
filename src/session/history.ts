import type { SessionStateFile } from './schemas';

type History = SessionStateFile['history'];

/**
 * One history out of two views of it — state.json's (complete) and a newer, shorter one (a projection's window,
 * or a live workflow that continued as new) — by iteration number, the newer entry winning.
 */
export function mergeHistory(older: History, newer: History): History {
  const byIteration = new Map(older.map((entry) => [entry.iteration, entry]));
  for (const entry of newer) byIteration.set(entry.iteration, entry);
  return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);
}
