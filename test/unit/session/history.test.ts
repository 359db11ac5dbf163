import {
  boundHistory,
  historyTotals,
  mergeHistory,
  NOTHING_EARLIER,
  STATE_HISTORY_ENTRIES,
} from '../../../src/session/history';

const entry = (iteration: number, success = true) => ({
  iteration,
  routine_id: 'worker',
  started_at: '2026-11-29T00:00:00.000Z',
  finished_at: '2026-11-29T00:00:01.000Z',
  success,
  error: success ? null : 'failed',
  harness_run_id: `run-${iteration}`,
  usage: null,
  recovered: false,
});

test('mergeHistory: the complete older view, with the newer entries winning, in iteration order', () => {
  const older = [entry(1), entry(2), entry(3, false)];
  const newer = [entry(3), entry(4)];
  expect(mergeHistory(older, newer)).toEqual([entry(1), entry(2), entry(3), entry(4)]);
  expect(mergeHistory([], newer)).toEqual(newer);
  expect(mergeHistory(older, [])).toEqual(older);
});

describe('boundHistory', () => {
  const many = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, (from + i) % 10 !== 0));
  const noModels = () => [];

  it('keeps the newest entries and sums the ones that leave', () => {
    const merged = many(1, STATE_HISTORY_ENTRIES + 20);
    const { history, earlier } = boundHistory(merged, NOTHING_EARLIER, () => ['gpt-x']);
    expect(history).toEqual(merged.slice(20));
    expect(earlier).toEqual({ through: 20, ok: 18, failed: 2, unpriced_models: ['gpt-x'] });
    expect(historyTotals({ history, earlier_history: earlier })).toMatchObject({
      ok: STATE_HISTORY_ENTRIES + 20 - (STATE_HISTORY_ENTRIES + 20) / 10,
      failed: (STATE_HISTORY_ENTRIES + 20) / 10,
      unpricedEarlier: ['gpt-x'],
    });
  });

  it('leaves a short history alone and never sums an entry twice', () => {
    const short = many(1, 3);
    expect(boundHistory(short, NOTHING_EARLIER, noModels)).toEqual({
      history: short,
      earlier: NOTHING_EARLIER,
    });
    const first = boundHistory(many(1, STATE_HISTORY_ENTRIES + 5), NOTHING_EARLIER, noModels);
    // a repair sends the old entries again: they leave again, uncounted
    const again = boundHistory(
      mergeHistory(many(1, 5), [...first.history, entry(STATE_HISTORY_ENTRIES + 6)]),
      first.earlier,
      noModels,
    );
    expect(again.earlier).toEqual({ through: 6, ok: 6, failed: 0, unpriced_models: [] });
  });

  it('counts a state written before the sums from its history alone', () => {
    expect(historyTotals({ history: many(1, 20) })).toMatchObject({ ok: 18, failed: 2 });
  });
});
