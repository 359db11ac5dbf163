import type { TheLoopConfig } from '../config/schema';
import { addUsd, formatUsd } from '../pricing/money';
import { readBudgetFile, type BudgetFile } from './limits-file';
import { readSpentTurns } from './ledger';

/** The limits in force, USD; null: none. */
export interface BudgetLimits {
  workItem: number | null;
  daily: number | null;
  monthly: number | null;
}

/** What was spent against each limit. */
export interface Spending {
  workItem: number;
  day: number;
  month: number;
}

export type BudgetScope = keyof BudgetLimits;

export interface BudgetWait {
  scope: BudgetScope;
  spent: number;
  limit: number;
  /** One line: what was spent of what, and the command that answers it. */
  detail: string;
}

/** The UTC day and month `now` falls in. */
export function budgetPeriod(now: Date): { day: string; month: string } {
  const iso = now.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** The limits for a work item (or for the fleet alone, without one) now: budget.json over the configuration. */
export function limitsInForce(
  config: Pick<TheLoopConfig, 'budget'>,
  file: BudgetFile,
  workItem: string | null,
  now: Date,
): BudgetLimits {
  const { day, month } = budgetPeriod(now);
  return {
    workItem: workItem === null ? null : (file.work_items[workItem] ?? config.budget.workItem ?? null),
    daily: file.daily[day] ?? config.budget.daily ?? null,
    monthly: file.monthly[month] ?? config.budget.monthly ?? null,
  };
}

/**
 * The first budget reached, the work item's before the fleet's, or null. A limit is reached once spent is at or
 * over it: the turn that crossed it has finished, and the next one waits.
 */
export function budgetReached(
  workItem: string | null,
  limits: BudgetLimits,
  spending: Spending,
  now: Date,
): BudgetWait | null {
  const { day, month } = budgetPeriod(now);
  const over = (scope: BudgetScope, spent: number, of: string, raise: string): BudgetWait | null => {
    const limit = limits[scope];
    if (limit === null || spent < limit) return null;
    const detail = `${of} spent ${formatUsd(spent)} of its ${formatUsd(limit)} budget: \`the-loop budget raise ${raise} --to <USD>\` lets it go on, or stop it`;
    return { scope, spent, limit, detail };
  };
  return (
    (workItem === null ? null : over('workItem', spending.workItem, workItem, workItem)) ??
    over('daily', spending.day, `the fleet (UTC day ${day})`, '--daily') ??
    over('monthly', spending.month, `the fleet (UTC month ${month})`, '--monthly')
  );
}

/** The fleet's spend this UTC day and month, from the ledger. */
export function fleetSpending(stateRoot: string, now: Date): Pick<Spending, 'day' | 'month'> {
  const { day, month } = budgetPeriod(now);
  let spentDay = 0;
  let spentMonth = 0;
  for (const turn of readSpentTurns(stateRoot, [month])) {
    spentMonth = addUsd(spentMonth, turn.cost_usd);
    if (turn.at.startsWith(day)) spentDay = addUsd(spentDay, turn.cost_usd);
  }
  return { day: spentDay, month: spentMonth };
}

/**
 * Whether a work item that spent `spent` so far must wait for a budget before its next turn; without a work item
 * (a goal session's turn), whether the fleet's budget holds it.
 */
export function workItemBudgetWait(
  config: Pick<TheLoopConfig, 'budget'>,
  stateRoot: string,
  workItem: string | null,
  spent: number,
  now = new Date(),
): BudgetWait | null {
  const limits = limitsInForce(config, readBudgetFile(stateRoot), workItem, now);
  // the ledger is read only when the fleet has a limit
  const fleet =
    limits.daily === null && limits.monthly === null ? { day: 0, month: 0 } : fleetSpending(stateRoot, now);
  return budgetReached(workItem, limits, { workItem: spent, ...fleet }, now);
}

/** The budgets in force now and what was spent against the fleet's, for `the-loop budget`. */
export interface BudgetsInForce {
  daily: { day: string; limit: number | null; spent: number };
  monthly: { month: string; limit: number | null; spent: number };
  /** Each work item's own limit, where one is set (`sessions start --max-cost-usd`, `budget raise REF`). */
  work_items: Record<string, number>;
  /** The configuration's `budget.workItem`, for work items without their own. */
  work_item_default: number | null;
}

export function budgetsInForce(
  config: Pick<TheLoopConfig, 'budget'>,
  stateRoot: string,
  now = new Date(),
): BudgetsInForce {
  const file = readBudgetFile(stateRoot);
  const limits = limitsInForce(config, file, null, now);
  const { day, month } = budgetPeriod(now);
  const spent = fleetSpending(stateRoot, now);
  return {
    daily: { day, limit: limits.daily, spent: spent.day },
    monthly: { month, limit: limits.monthly, spent: spent.month },
    work_items: file.work_items,
    work_item_default: config.budget.workItem ?? null,
  };
}
