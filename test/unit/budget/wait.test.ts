import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendSpentTurns, readSpentTurns, type SpentTurn } from '../../../src/budget/ledger';
import { goalSessionName } from '../../../src/budget/goal-spend';
import { emptyBudgetFile, updateBudgetFile, readBudgetFile } from '../../../src/budget/limits-file';
import { budgetApplies, unpriceable } from '../../../src/budget/priceable';
import { budgetReached, budgetsInForce, limitsInForce, workItemBudgetWait } from '../../../src/budget/wait';

const NOW = new Date('2026-12-03T10:00:00.000Z');
const ITEM = 'github:octo/repo#7';
const none = { workItem: null, daily: null, monthly: null };
const config = (budget: { workItem?: number; daily?: number; monthly?: number } = {}) => ({ budget });

const turn = (at: string, cost: number, key = `${at}#${cost}`): SpentTurn => ({
  at,
  kind: 'work-item',
  session: ITEM,
  turn: key,
  cost_usd: cost,
  unpriced: false,
});

describe('budgets', () => {
  it('nothing reached below every limit; a limit is reached at it, not only over it', () => {
    const spending = { workItem: 0.99, day: 5, month: 50 };
    const limits = { workItem: 1, daily: 10, monthly: 100 };
    expect(budgetReached(ITEM, limits, spending, NOW)).toBeNull();
    expect(budgetReached(ITEM, limits, { ...spending, workItem: 1 }, NOW)).toMatchObject({
      scope: 'workItem',
      spent: 1,
      limit: 1,
    });
  });

  it("the work item's own first, then the day's, then the month's; each names the command that answers it", () => {
    const limits = { workItem: 1, daily: 10, monthly: 100 };
    const all = { workItem: 2, day: 20, month: 200 };
    expect(budgetReached(ITEM, limits, all, NOW)?.detail).toBe(
      'github:octo/repo#7 spent $2.00 of its $1.00 budget: `the-loop budget raise github:octo/repo#7 --to <USD>` lets it go on, or stop it',
    );
    expect(budgetReached(ITEM, limits, { ...all, workItem: 0 }, NOW)?.detail).toBe(
      'the fleet (UTC day 2026-12-03) spent $20.00 of its $10.00 budget: `the-loop budget raise --daily --to <USD>` lets it go on, or stop it',
    );
    expect(budgetReached(ITEM, limits, { workItem: 0, day: 0, month: 200 }, NOW)?.scope).toBe('monthly');
    expect(budgetReached(null, limits, { ...all, day: 0, month: 0 }, NOW)).toBeNull();
    expect(budgetReached(ITEM, none, all, NOW)).toBeNull();
  });

  it("budget.json's limits stand over the configuration's, the fleet's only for their own day and month", () => {
    const file = {
      schema_version: 1 as const,
      work_items: { [ITEM]: 3 },
      daily: { '2026-12-02': 7, '2026-12-03': 8 },
      monthly: { '2026-11': 90 },
    };
    const configured = config({ workItem: 1, daily: 10, monthly: 100 });
    expect(limitsInForce(configured, file, ITEM, NOW)).toEqual({ workItem: 3, daily: 8, monthly: 100 });
    expect(limitsInForce(configured, file, 'github:octo/repo#8', NOW).workItem).toBe(1);
    expect(limitsInForce(config(), file, null, NOW)).toEqual({ workItem: null, daily: 8, monthly: null });
  });

  it("the fleet's spend comes from the ledger, each turn once, by UTC day and month", async () => {
    const root = mkdtempSync(join(tmpdir(), 'tl-budget-'));
    appendSpentTurns(root, [
      turn('2026-12-03T01:00:00.000Z', 0.1, 'a#1'),
      turn('2026-12-03T02:00:00.000Z', 0.2, 'a#2'),
      // the same turn again (a worker that restarted appends it twice): counted once
      turn('2026-12-03T02:00:00.000Z', 0.2, 'a#2'),
      turn('2026-12-01T02:00:00.000Z', 0.4, 'a#3'),
      turn('2026-11-30T02:00:00.000Z', 0.8, 'a#4'),
    ]);
    expect(readSpentTurns(root).map((t) => t.turn)).toEqual(['a#4', 'a#1', 'a#2', 'a#3']);
    expect(readSpentTurns(root, ['2026-12'])).toHaveLength(3);
    expect(budgetsInForce(config({ daily: 0.3 }), root, NOW)).toMatchObject({
      daily: { day: '2026-12-03', limit: 0.3, spent: 0.3 },
      monthly: { month: '2026-12', limit: null, spent: 0.7 },
    });
    expect(workItemBudgetWait(config({ daily: 0.3 }), root, ITEM, 0, NOW)?.scope).toBe('daily');
    expect(workItemBudgetWait(config({ daily: 0.31 }), root, ITEM, 0, NOW)).toBeNull();
    await updateBudgetFile(root, (file) => ({ ...file, work_items: { [ITEM]: 0.05 } }));
    expect(readBudgetFile(root).work_items).toEqual({ [ITEM]: 0.05 });
    expect(workItemBudgetWait(config(), root, ITEM, 0.05, NOW)?.scope).toBe('workItem');
  });

  it('a budget refuses a harness that reports no usage; a goal session is named as `loopy` names it', () => {
    const inForce = (budget: Parameters<typeof config>[0], file = emptyBudgetFile()) =>
      limitsInForce(config(budget), file, ITEM, NOW);
    expect(budgetApplies(inForce({}))).toBe(false);
    expect(budgetApplies(inForce({ workItem: 5 }))).toBe(true);
    expect(budgetApplies(inForce({ monthly: 100 }))).toBe(true);
    // a fleet budget set from the command line (budget.json) applies as the configuration's does
    expect(budgetApplies(inForce({}, { ...emptyBudgetFile(), daily: { '2026-12-03': 20 } }))).toBe(true);
    expect(unpriceable(['claude', 'codex'])).toBeNull();
    expect(unpriceable(['claude', 'cursor'])).toBe(
      'the cursor harness reports no token usage, so a budget cannot count its cost',
    );
    expect(goalSessionName('/w/.loopy_loop/sessions/20261203_a')).toBe('20261203_a');
    expect(goalSessionName('/w/.loopy_loop/sessions/20261203_a/children/20261203_b')).toBe(
      '20261203_a/20261203_b',
    );
  });
});
