import {
  continueAsNewDue,
  limitReached,
  remainingBudgetUsd,
} from '../../../../src/workflows/goal-session/limits';
import type { SessionLimits } from '../../../../src/workflows/goal-session/types';

const none: SessionLimits = {
  maxIterations: null,
  maxCostUsd: null,
  maxDurationMs: null,
  maxConsecutiveFailures: 3,
};
const fresh = { iteration: 0, spentUsd: 0, elapsedMs: 0, consecutiveFailures: 0 };

describe('goal-session limits', () => {
  it('goes on while no limit is reached', () => {
    const limits = { ...none, maxIterations: 5, maxCostUsd: 2, maxDurationMs: 60_000 };
    expect(
      limitReached(limits, { iteration: 4, spentUsd: 1.99, elapsedMs: 59_999, consecutiveFailures: 2 }),
    ).toBeNull();
    expect(limitReached(none, { ...fresh, iteration: 10_000, spentUsd: 1e6, elapsedMs: 1e12 })).toBeNull();
  });

  it('stops at max iterations once that many have run', () => {
    expect(limitReached({ ...none, maxIterations: 3 }, { ...fresh, iteration: 3 })).toEqual({
      kind: 'max_iterations',
      reason: 'max iterations: ran 3 of 3',
    });
  });

  it('stops on the budget once the whole ledger reaches it', () => {
    expect(limitReached({ ...none, maxCostUsd: 1.5 }, { ...fresh, spentUsd: 1.504 })).toEqual({
      kind: 'budget',
      reason: 'budget: spent $1.50 of $1.50',
    });
  });

  it('says so when the last call went over the budget', () => {
    expect(limitReached({ ...none, maxCostUsd: 0.25 }, { ...fresh, spentUsd: 0.29 })).toEqual({
      kind: 'budget',
      reason: 'budget: spent $0.29 of $0.25; the last call went over',
    });
  });

  it('stops on duration, in whole seconds', () => {
    expect(limitReached({ ...none, maxDurationMs: 10_000 }, { ...fresh, elapsedMs: 12_600 })).toEqual({
      kind: 'max_duration',
      reason: 'max duration: ran 13 s',
    });
  });

  it('stops after the consecutive-failure limit', () => {
    expect(limitReached(none, { ...fresh, consecutiveFailures: 3 })).toEqual({
      kind: 'consecutive_failures',
      reason: '3 consecutive failed iterations',
    });
  });

  it('reports the first limit reached: iterations, then budget, then duration, then failures', () => {
    const all = { maxIterations: 1, maxCostUsd: 1, maxDurationMs: 1, maxConsecutiveFailures: 1 };
    const over = { iteration: 1, spentUsd: 1, elapsedMs: 1, consecutiveFailures: 1 };
    expect(limitReached(all, over)?.kind).toBe('max_iterations');
    expect(limitReached({ ...all, maxIterations: null }, over)?.kind).toBe('budget');
    expect(limitReached({ ...all, maxIterations: null, maxCostUsd: null }, over)?.kind).toBe('max_duration');
  });

  it('leaves the rest of the budget to the next turn, never less than nothing', () => {
    expect(remainingBudgetUsd({ maxCostUsd: null }, 5)).toBeNull();
    expect(remainingBudgetUsd({ maxCostUsd: 2 }, 0.5)).toBe(1.5);
    expect(remainingBudgetUsd({ maxCostUsd: 2 }, 3)).toBe(0);
  });

  it('continues as new when the server suggests it or the history reaches the threshold', () => {
    expect(continueAsNewDue({ continueAsNewSuggested: true, historyLength: 10 }, undefined)).toBe(true);
    expect(continueAsNewDue({ continueAsNewSuggested: false, historyLength: 10_000 }, undefined)).toBe(false);
    expect(continueAsNewDue({ continueAsNewSuggested: false, historyLength: 39 }, 40)).toBe(false);
    expect(continueAsNewDue({ continueAsNewSuggested: false, historyLength: 40 }, 40)).toBe(true);
  });
});
