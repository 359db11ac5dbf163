import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetFile, readBudgetFile, updateBudgetFile } from '../../../src/budget/limits-file';
import { configSchema } from '../../../src/config/schema';
import { EXIT } from '../../../src/errors';
import type { SessionsContext } from '../../../src/use-cases/context';
import { raiseBudget } from '../../../src/use-cases/raise-budget';
import { workItemDirs } from '../../../src/work-item/paths';
import { refusal } from '../../support/cli-refusal';

const NOW = new Date('2026-12-03T10:00:00.000Z');
const ITEM = 'github:octo/repo#7';

/**
 * An address nothing listens on: a port the kernel handed out and that was closed again. Telling the waiting
 * sessions needs Temporal; here it is down, so what the raise decided and wrote is seen without any server (and
 * never reaches a Temporal another run on this machine may be serving at the default address).
 */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

async function context(budget: Record<string, number> = {}): Promise<SessionsContext> {
  return {
    config: configSchema.parse({ temporal: { address: await closedAddress() }, budget }),
    stateDir: mkdtempSync(join(tmpdir(), 'uc-raise-')),
  };
}

const stateRoot = (ctx: SessionsContext) => workItemDirs(ctx.config, ctx.stateDir).stateRoot;

describe('raiseBudget', () => {
  it('--by needs a limit in force to add to: without one it is bad input, and nothing is written', async () => {
    const ctx = await context();
    const item = await refusal(raiseBudget(ctx, { workItem: ITEM }, { by: 1 }, NOW));
    expect(item.exitCode).toBe(EXIT.usage);
    expect(item.message).toBe(`${ITEM} has no budget yet: give --to <USD> to set one`);
    const daily = await refusal(raiseBudget(ctx, { period: 'daily' }, { by: 1 }, NOW));
    expect(daily.message).toBe('the fleet has no daily budget yet: give --to <USD> to set one');
    expect(daily.exitCode).toBe(EXIT.usage);
    expect(existsSync(budgetFile(stateRoot(ctx)))).toBe(false);
  });

  it("--to sets the work item's own budget under its canonical ref; with Temporal down it says so (exit 4), the raise kept", async () => {
    const ctx = await context({ workItem: 1 });
    const error = await refusal(raiseBudget(ctx, { workItem: 'github:Octo/Repo#7' }, { to: 5 }, NOW));
    expect(error.exitCode).toBe(EXIT.unavailable);
    expect(error.message).toMatch(
      /^raised github:octo\/repo#7's budget to \$5\.00, but could not tell its waiting sessions \(.*\): run the raise again once Temporal is up$/,
    );
    expect(readBudgetFile(stateRoot(ctx))).toEqual({
      schema_version: 1,
      work_items: { [ITEM]: 5 },
      daily: {},
      monthly: {},
    });
  });

  it("--by adds to the limit in force: the configuration's, or budget.json's over it, for this UTC day or month only", async () => {
    const ctx = await context({ daily: 10, monthly: 100 });
    await updateBudgetFile(stateRoot(ctx), (file) => ({
      ...file,
      // an earlier month's raise has lapsed: this month's limit is the configuration's again
      monthly: { '2026-11': 300 },
      work_items: { 'github:octo/repo#8': 2 },
    }));

    const day = await refusal(raiseBudget(ctx, { period: 'daily' }, { by: 2.5 }, NOW));
    expect(day.exitCode).toBe(EXIT.unavailable);
    expect(day.message).toMatch(/^raised 2026-12-03's budget to \$12\.50, /);
    // raised again the same day: from the raised limit, not the configuration's
    await refusal(raiseBudget(ctx, { period: 'daily' }, { by: 1 }, NOW));
    const month = await refusal(raiseBudget(ctx, { period: 'monthly' }, { by: 50 }, NOW));
    expect(month.message).toMatch(/^raised 2026-12's budget to \$150\.00, /);

    expect(readBudgetFile(stateRoot(ctx))).toEqual({
      schema_version: 1,
      work_items: { 'github:octo/repo#8': 2 },
      daily: { '2026-12-03': 13.5 },
      monthly: { '2026-11': 300, '2026-12': 150 },
    });
  });

  it('a malformed work item is bad input before anything is written', async () => {
    const ctx = await context();
    expect((await refusal(raiseBudget(ctx, { workItem: 'octo/repo' }, { to: 1 }, NOW))).exitCode).toBe(
      EXIT.usage,
    );
    expect(existsSync(budgetFile(stateRoot(ctx)))).toBe(false);
  });
});
