import type { HistoryEntry } from '../../src/session/schemas/state';

/** A successful turn's history entry in state.json, numbered `iteration`. */
export function historyEntry(iteration: number, over: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    iteration,
    routine_id: 'work',
    started_at: '2026-11-30T09:00:00.000Z',
    finished_at: '2026-11-30T09:00:01.000Z',
    success: true,
    error: null,
    harness_run_id: null,
    usage: null,
    recovered: false,
    ...over,
  };
}
