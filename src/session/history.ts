import type { EarlierHistory, SessionStateFile } from './schemas/state';

type History = SessionStateFile['history'];

/**
 * How many of the newest history entries state.json keeps. history.jsonl holds every entry and `earlier_history`
 * sums the ones that left: rewriting every entry on every turn made a long session's turns, and each reader of
 * state.json, slower the longer it ran.
 */
export const STATE_HISTORY_ENTRIES = 50;

/** No entry has left state.json's history yet. */
export const NOTHING_EARLIER: EarlierHistory = { through: 0, ok: 0, failed: 0, unpriced_models: [] };

/**
 * One history out of two views of it — state.json's (complete) and a newer, shorter one (a projection's window,
 * or a live workflow that continued as new) — by iteration number, the newer entry winning.
 */
export function mergeHistory(older: History, newer: History): History {
  const byIteration = new Map(older.map((entry) => [entry.iteration, entry]));
  for (const entry of newer) byIteration.set(entry.iteration, entry);
  return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);
}

/**
 * state.json's history after a projection: its newest STATE_HISTORY_ENTRIES entries, the older ones added to the
 * sums. An entry the sums already cover (a repair sends old entries again) is not counted twice. `unpricedOf` names
 * the unpriced models of the entries it is given (from their result.json files).
 */
export function boundHistory(
  merged: History,
  earlier: EarlierHistory,
  unpricedOf: (entries: History) => string[],
): { history: History; earlier: EarlierHistory } {
  const cut = merged.length - STATE_HISTORY_ENTRIES;
  if (cut <= 0) return { history: merged, earlier };
  const leaving = merged.slice(0, cut).filter((entry) => entry.iteration > earlier.through);
  const last = leaving.at(-1);
  if (!last) return { history: merged.slice(cut), earlier };
  const ok = leaving.filter((entry) => entry.success).length;
  return {
    history: merged.slice(cut),
    earlier: {
      through: last.iteration,
      ok: earlier.ok + ok,
      failed: earlier.failed + leaving.length - ok,
      unpriced_models: [...new Set([...earlier.unpriced_models, ...unpricedOf(leaving)])],
    },
  };
}

/** Every turn a state records: the sums of those that left its history, and the entries it still holds. */
export interface HistoryTotals {
  ok: number;
  failed: number;
  /** The entries the sums do not cover: the unpriced models of these are still to be read. */
  recent: History;
  /** Models without a price among the summed turns. */
  unpricedEarlier: string[];
}

export function historyTotals(state: Pick<SessionStateFile, 'history' | 'earlier_history'>): HistoryTotals {
  const earlier = state.earlier_history ?? NOTHING_EARLIER;
  const recent = state.history.filter((entry) => entry.iteration > earlier.through);
  const ok = recent.filter((entry) => entry.success).length;
  return {
    ok: earlier.ok + ok,
    failed: earlier.failed + recent.length - ok,
    recent,
    unpricedEarlier: earlier.unpriced_models,
  };
}
