import { usageError } from '../errors';
import { canonicalWorkItem, type SessionsContext } from './context';
import { workItemDirs } from '../work-item/paths';
import { parseWorkItemRef, refSlug } from '../work-item/ref';
import { readRecord } from '../work-item/registry';
import { readBudgetFile, updateBudgetFile } from '../budget/limits-file';
import { budgetApplies, unpriceable } from '../budget/priceable';
import { limitsInForce } from '../budget/wait';

/**
 * Before `sessions start`: a work item whose cost a budget cannot count (its harness reports no usage) is refused
 * when a budget covers it, unless `--allow-unpriced`; then `--max-cost-usd` becomes the work item's own budget.
 * Nothing is written when the start is refused.
 */
export async function startBudget(
  ctx: SessionsContext,
  workItemText: string,
  maxCostUsd: number | null,
  allowUnpriced: boolean,
): Promise<void> {
  const workItem = canonicalWorkItem(workItemText);
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const harness =
    readRecord(dirs, refSlug(parseWorkItemRef(workItem)))?.harness ?? ctx.config.harness.default;
  const limits = limitsInForce(ctx.config, readBudgetFile(dirs.stateRoot), workItem, new Date());
  const own = { ...limits, workItem: maxCostUsd ?? limits.workItem };
  const cannotCount = budgetApplies(own) ? unpriceable([harness]) : null;
  if (cannotCount !== null && !allowUnpriced) {
    throw usageError(
      `${workItem}: ${cannotCount}: drop the budget (--max-cost-usd, budget.workItem, budget.daily/monthly) or pass --allow-unpriced`,
    );
  }
  if (maxCostUsd === null) return;
  await updateBudgetFile(dirs.stateRoot, (file) => ({
    ...file,
    work_items: { ...file.work_items, [workItem]: maxCostUsd },
  }));
}
