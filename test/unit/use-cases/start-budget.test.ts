import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetFile, readBudgetFile, updateBudgetFile } from '../../../src/budget/limits-file';
import { configSchema } from '../../../src/config/schema';
import { EXIT } from '../../../src/errors';
import type { SessionsContext } from '../../../src/use-cases/context';
import { startBudget } from '../../../src/use-cases/start-budget';
import { workItemDirs } from '../../../src/work-item/paths';
import { writeRecord } from '../../../src/work-item/registry';
import { sessionRecord } from '../../support/registry-record';
import { refusal } from '../../support/cli-refusal';

const ITEM = 'github:octo/repo#7';

function context(config: Record<string, unknown> = {}): SessionsContext {
  return { config: configSchema.parse(config), stateDir: mkdtempSync(join(tmpdir(), 'uc-start-budget-')) };
}

const stateRoot = (ctx: SessionsContext) => workItemDirs(ctx.config, ctx.stateDir).stateRoot;

/** The work item as recorded on this machine, run by `harness`. */
function recorded(ctx: SessionsContext, harness: 'claude' | 'cursor'): void {
  writeRecord(workItemDirs(ctx.config, ctx.stateDir), { ...sessionRecord(ITEM, [], null), harness });
}

describe('startBudget', () => {
  it("--max-cost-usd becomes the work item's own budget in budget.json, under its canonical ref", async () => {
    const ctx = context();
    await startBudget(ctx, 'github:Octo/Repo#7', 2.5, false);
    expect(readBudgetFile(stateRoot(ctx)).work_items).toEqual({ [ITEM]: 2.5 });
  });

  it('keeps what budget.json already holds, replacing only this work item', async () => {
    const ctx = context();
    await updateBudgetFile(stateRoot(ctx), (file) => ({
      ...file,
      work_items: { [ITEM]: 1, 'github:octo/repo#8': 4 },
      daily: { '2026-12-03': 9 },
    }));
    await startBudget(ctx, ITEM, 3, false);
    expect(readBudgetFile(stateRoot(ctx))).toMatchObject({
      work_items: { [ITEM]: 3, 'github:octo/repo#8': 4 },
      daily: { '2026-12-03': 9 },
    });
  });

  it('without --max-cost-usd nothing is written', async () => {
    const ctx = context({ budget: { daily: 10 } });
    await startBudget(ctx, ITEM, null, false);
    expect(existsSync(budgetFile(stateRoot(ctx)))).toBe(false);
  });

  it('refuses (exit 2, nothing written) a harness that reports no usage when any budget covers it', async () => {
    // its own budget, from --max-cost-usd
    const own = context();
    recorded(own, 'cursor');
    const error = await refusal(startBudget(own, ITEM, 5, false));
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toBe(
      `${ITEM}: the cursor harness reports no token usage, so a budget cannot count its cost: drop the budget (--max-cost-usd, budget.workItem, budget.daily/monthly) or pass --allow-unpriced`,
    );
    expect(existsSync(budgetFile(stateRoot(own)))).toBe(false);

    // the fleet's, from the configuration; the harness is the configured default when no record names one
    const fleet = context({ harness: { default: 'cursor' }, budget: { monthly: 100 } });
    expect((await refusal(startBudget(fleet, ITEM, null, false))).exitCode).toBe(EXIT.usage);
  });

  it('--allow-unpriced lets it start, and its --max-cost-usd is still written', async () => {
    const ctx = context({ budget: { daily: 10 } });
    recorded(ctx, 'cursor');
    await startBudget(ctx, ITEM, 5, true);
    expect(readBudgetFile(stateRoot(ctx)).work_items[ITEM]).toBe(5);
  });

  it('a harness that cannot be counted starts freely when no budget covers it', async () => {
    const ctx = context();
    recorded(ctx, 'cursor');
    await expect(startBudget(ctx, ITEM, null, false)).resolves.toBeUndefined();
    expect(existsSync(budgetFile(stateRoot(ctx)))).toBe(false);
  });

  it('a malformed ref is bad input', async () => {
    expect((await refusal(startBudget(context(), 'octo/repo#7', 1, false))).exitCode).toBe(EXIT.usage);
  });
});
