import { CliError, EXIT } from '../errors';
import { formatUsd } from '../pricing/money';
import { canonicalWorkItem, withTemporal, type SessionsContext } from './context';
import { tellBudgetRaised } from '../temporal/work-items';
import { tellGoalSessionsBudgetRaised } from '../temporal/goal-sessions';
import { workItemDirs } from '../work-item/paths';
import { parseWorkItemRef, refSlug } from '../work-item/ref';
import { listRecords, readRecord } from '../work-item/registry';
import { updateBudgetFile } from '../budget/limits-file';
import { budgetPeriod, fleetSpending, limitsInForce, type BudgetScope } from '../budget/wait';

/** Which budget: a work item's, or the fleet's for this UTC day or month. */
export type RaiseTarget = { workItem: string } | { period: 'daily' | 'monthly' };

export interface RaiseResult {
  scope: BudgetScope;
  /** The work item, or the UTC day or month the raise holds for. */
  of: string;
  from: number | null;
  to: number;
  spent: number;
  /** Sessions held at a budget that were told to go on (each checks again before its next turn). */
  told: string[];
}

/** The new limit: `to` as given, or `by` over the limit in force. */
function newLimit(current: number | null, change: { to: number } | { by: number }, what: string): number {
  if ('to' in change) return change.to;
  if (current === null) {
    throw new CliError(`${what} yet: give --to <USD> to set one`, EXIT.usage);
  }
  return current + change.by;
}

/**
 * `the-loop budget raise`: sets a work item's budget, or the fleet's for today or this month, in budget.json, then
 * tells the sessions waiting at a budget to go on: the named work item's, or for the fleet every one whose record
 * says it waits at one, and every goal session Temporal lists as waiting at one. Each checks its budgets again before its next turn, and waits anew if one is still reached.
 */
export async function raiseBudget(
  ctx: SessionsContext,
  target: RaiseTarget,
  change: { to: number } | { by: number },
  now = new Date(),
): Promise<RaiseResult> {
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const workItem = 'workItem' in target ? canonicalWorkItem(target.workItem) : null;
  const { day, month } = budgetPeriod(now);
  const scope: BudgetScope = 'workItem' in target ? 'workItem' : target.period;
  const of = workItem ?? (scope === 'daily' ? day : month);
  let from: number | null = null;
  let to = 0;
  await updateBudgetFile(dirs.stateRoot, (file) => {
    from = limitsInForce(ctx.config, file, workItem, now)[scope];
    to = newLimit(
      from,
      change,
      workItem !== null ? `${workItem} has no budget` : `the fleet has no ${scope} budget`,
    );
    if (workItem !== null) return { ...file, work_items: { ...file.work_items, [workItem]: to } };
    if (scope === 'daily') return { ...file, daily: { ...file.daily, [day]: to } };
    return { ...file, monthly: { ...file.monthly, [month]: to } };
  });
  const spent =
    workItem !== null
      ? (readRecord(dirs, refSlug(parseWorkItemRef(workItem)))?.spent?.usage.cost_usd ?? 0)
      : fleetSpending(dirs.stateRoot, now)[scope === 'daily' ? 'day' : 'month'];
  const waiting =
    workItem !== null
      ? [workItem]
      : listRecords(dirs.registryDir)
          .records.filter((record) => record.status !== 'closed' && record.waiting?.reason === 'budget')
          .map((record) => record.work_item);
  const told = await withTemporal(ctx, async (client) => {
    const running: string[] = [];
    for (const item of waiting) if (await tellBudgetRaised(client, item)) running.push(item);
    // goal sessions wait at the fleet's budgets only
    if (workItem === null) running.push(...(await tellGoalSessionsBudgetRaised(client)));
    return running;
  }).catch((error: unknown) => {
    throw new CliError(
      `raised ${of}'s budget to ${formatUsd(to)}, but could not tell its waiting sessions (${String(error)}): run the raise again once Temporal is up`,
      EXIT.unavailable,
    );
  });
  return { scope, of, from, to, spent, told };
}
