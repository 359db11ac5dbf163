import type { BudgetLimits } from './wait';

/** Harnesses whose turns report no token usage: their cost cannot be counted against a budget. */
const UNMETERED = ['cursor', 'command'];

/** Whether any budget covers a session: its own, or the fleet's (limitsInForce). */
export function budgetApplies(limits: BudgetLimits): boolean {
  return limits.workItem !== null || limits.daily !== null || limits.monthly !== null;
}

/**
 * Why a budget cannot cover a session that runs these harnesses, or null: one of them reports no token usage. (A
 * model with no price is found at its first turn: a warning, and its cost shows `unpriced`.)
 */
export function unpriceable(harnesses: readonly string[]): string | null {
  const unmetered = harnesses.find((harness) => UNMETERED.includes(harness));
  return unmetered
    ? `the ${unmetered} harness reports no token usage, so a budget cannot count its cost`
    : null;
}
