import type { SpentTurn } from '../../../src/budget/ledger';
import { summarizeSpend } from '../../../src/budget/spend';

const turn = (at: string, session: string, costUsd: number, unpriced = false): SpentTurn => ({
  at,
  kind: session.startsWith('github:') ? 'work-item' : 'goal',
  session,
  turn: `${session}#${at}`,
  cost_usd: costUsd,
  unpriced,
});

describe('spend, added up', () => {
  it('by UTC day (oldest first), by session (the most expensive first) and in all, without float drift', () => {
    const report = summarizeSpend([
      turn('2026-12-02T23:59:59.000Z', 'github:octo/repo#1', 0.1),
      turn('2026-12-03T00:00:01.000Z', 'github:octo/repo#1', 0.2),
      turn('2026-12-03T08:00:00.000Z', '20261203_080000_abc', 0.7, true),
      turn('2026-12-01T12:00:00.000Z', '20261203_080000_abc/20261203_081000_def', 0.05),
    ]);
    expect(report.days).toEqual([
      { day: '2026-12-01', cost_usd: 0.05, turns: 1, unpriced_turns: 0 },
      { day: '2026-12-02', cost_usd: 0.1, turns: 1, unpriced_turns: 0 },
      { day: '2026-12-03', cost_usd: 0.9, turns: 2, unpriced_turns: 1 },
    ]);
    expect(report.sessions.map((s) => [s.session, s.kind, s.cost_usd, s.turns])).toEqual([
      ['20261203_080000_abc', 'goal', 0.7, 1],
      ['github:octo/repo#1', 'work-item', 0.3, 2],
      ['20261203_080000_abc/20261203_081000_def', 'goal', 0.05, 1],
    ]);
    // 0.1 + 0.2 is 0.30000000000000004 in floats
    expect(report.total).toEqual({ cost_usd: 1.05, turns: 4, unpriced_turns: 1 });
  });

  it('nothing spent is an empty report, not an error', () => {
    expect(summarizeSpend([])).toEqual({
      days: [],
      sessions: [],
      total: { cost_usd: 0, turns: 0, unpriced_turns: 0 },
    });
  });
});
