// Pure rules for when a goal session ends or rolls over into a new run. Runs inside workflow code: `import type`
// only, and the caller passes the clock.
import type { SessionLimits, StopKind } from './types';

export interface Stop {
  kind: StopKind;
  reason: string;
}

/** What the limits are checked against, before each turn. */
export interface SessionProgress {
  /** Turns dispatched so far. */
  iteration: number;
  /** The session's whole ledger: its own turns and its children's. */
  spentUsd: number;
  /** Since the session's clock started. */
  elapsedMs: number;
  consecutiveFailures: number;
}

/** The first limit the session has reached, in the order the layout doc lists them; null to go on. */
export function limitReached(limits: SessionLimits, progress: SessionProgress): Stop | null {
  const { iteration, spentUsd, elapsedMs, consecutiveFailures } = progress;
  if (limits.maxIterations !== null && iteration >= limits.maxIterations) {
    return { kind: 'max_iterations', reason: `max iterations: ran ${iteration} of ${limits.maxIterations}` };
  }
  if (limits.maxCostUsd !== null && spentUsd >= limits.maxCostUsd) {
    return {
      kind: 'budget',
      reason: `budget: spent $${spentUsd.toFixed(2)} of $${limits.maxCostUsd.toFixed(2)}${Math.round(spentUsd * 100) > Math.round(limits.maxCostUsd * 100) ? '; the last call went over' : ''}`,
    };
  }
  if (limits.maxDurationMs !== null && elapsedMs >= limits.maxDurationMs) {
    return { kind: 'max_duration', reason: `max duration: ran ${Math.round(elapsedMs / 1000)} s` };
  }
  if (consecutiveFailures >= limits.maxConsecutiveFailures) {
    return { kind: 'consecutive_failures', reason: `${consecutiveFailures} consecutive failed iterations` };
  }
  return null;
}

/** What is left of the cost budget for the next turn (it caps a claude turn's --max-budget-usd); null: no budget. */
export function remainingBudgetUsd(
  limits: Pick<SessionLimits, 'maxCostUsd'>,
  spentUsd: number,
): number | null {
  return limits.maxCostUsd === null ? null : Math.max(0, limits.maxCostUsd - spentUsd);
}

/**
 * A run continues as new when the server suggests it, or once its history has `afterEvents` events (a session
 * input for tests and small clusters).
 */
export function continueAsNewDue(
  info: { continueAsNewSuggested: boolean; historyLength: number },
  afterEvents: number | undefined,
): boolean {
  return info.continueAsNewSuggested || info.historyLength >= (afterEvents ?? Infinity);
}
