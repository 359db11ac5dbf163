import { join } from 'node:path';
import { z } from 'zod';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { withFileLock } from '../work-item/lock';

const usd = z.number().positive();

/**
 * <state.root>/budget.json: the budgets set from the command line, over the configuration's `budget:`. A work item's
 * own (`sessions start --max-cost-usd`, `budget raise REF`), and the fleet's for one UTC day or month (`budget raise
 * --daily|--monthly`), which lapses with its period.
 */
export const budgetFileSchema = z.object({
  schema_version: z.literal(1),
  /** By work item ref. */
  work_items: z.record(z.string().min(1), usd),
  /** By UTC day, `YYYY-MM-DD`. */
  daily: z.record(z.string().regex(/^\d{4}-\d{2}-\d{2}$/), usd),
  /** By UTC month, `YYYY-MM`. */
  monthly: z.record(z.string().regex(/^\d{4}-\d{2}$/), usd),
});
export type BudgetFile = z.infer<typeof budgetFileSchema>;

export const budgetFile = (stateRoot: string) => join(stateRoot, 'budget.json');

export const emptyBudgetFile = (): BudgetFile => ({
  schema_version: 1,
  work_items: {},
  daily: {},
  monthly: {},
});

export function readBudgetFile(stateRoot: string): BudgetFile {
  return readJsonIfExists(budgetFile(stateRoot), budgetFileSchema) ?? emptyBudgetFile();
}

/** Changes budget.json under its lock; the file is replaced whole, never half-written. */
export async function updateBudgetFile(
  stateRoot: string,
  change: (file: BudgetFile) => BudgetFile,
): Promise<BudgetFile> {
  const file = budgetFile(stateRoot);
  return withFileLock(file, () => {
    const next = change(readBudgetFile(stateRoot));
    writeJsonAtomic(file, budgetFileSchema, next);
    return next;
  });
}
