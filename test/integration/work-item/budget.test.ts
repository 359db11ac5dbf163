import { randomUUID } from 'node:crypto';
import { runningWorkItem, deliverToWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { messagesText, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { workItemWorkflowId } from '../../../src/workflows/work-item/ids';
import { setupRealClaudeEnv, workflowStatus, workItemEvents, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(900_000);

const KEY = `sk-ant-api03-budget-test-${randomUUID()}`;
// Work-item workflow ids are server-wide and every suite shares the run's dev server: numbers no other suite uses.
const OWN = 'github:octo/repo#1921';
const FLEET = 'github:octo/repo#1922';
/** A model only this test prices: each model call the mock serves costs $0.02 (1,000 tokens in and out at $10/M). */
const MODEL = 'claude-budget-test-1';
const PRICE = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 };
const CALL = {
  input_tokens: 1000,
  output_tokens: 1000,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/**
 * Budgets over hosted turns, with the REAL interactive Claude Code in tmux against the local mock: a work item's own
 * budget (`sessions start --max-cost-usd`) and the fleet's daily one each hold the sessions concerned at
 * `waiting: budget` once a turn crosses them, the crossing turn having finished; `the-loop budget raise` lets them go
 * on. The configuration's `budget.daily` is in force until `budget raise --daily` sets today's.
 */
describe('budgets of work items and of the fleet', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;

  const deliver = (ref: string, id: string, text: string, allowStart = false) =>
    deliverToWorkItem(env.client, env.queues, ref, { id, text, source: 'test' }, allowStart);
  const statusOf = async (ref: string) => (await runningWorkItem(env.client, ref))?.query(statusQuery);
  const received = (text: string) =>
    mock.requests.some((r) => r.kind === 'agent' && messagesText(r.body).includes(text));
  const waitingAtBudget = (ref: string) =>
    waitFor(
      `${ref} to wait at a budget`,
      () => {
        const waiting = env.record(ref)?.waiting;
        return waiting?.reason === 'budget' ? waiting : null;
      },
      240_000,
    );
  const spentOf = (ref: string) => env.record(ref)?.spent?.usage.cost_usd ?? 0;
  const listRow = async (ref: string) =>
    (await env.cli(['sessions', 'list'])).stdout.split('\n').find((line) => line.startsWith(ref)) ?? '';

  beforeAll(async () => {
    mock = await startMockAnthropic();
    mock.setRespond((call) => {
      const last = [...messagesText(call.body).matchAll(/EVT-[a-z]+/g)].at(-1)?.[0] ?? 'the kickoff';
      return { text: `reply to ${last}`, usage: CALL };
    });
    env = await setupRealClaudeEnv(mock, KEY, {
      envFileLines: [`ANTHROPIC_MODEL=${MODEL}`],
      passthrough: ['ANTHROPIC_MODEL'],
      yaml: { pricing: { [MODEL]: PRICE }, budget: { daily: 100 } },
    });
  });

  afterAll(async () => {
    await env?.dispose();
    await mock?.close();
  });

  it("a work item's own budget: the turn that crosses it finishes, the next waits until `budget raise`", async () => {
    const start = await env.cli([
      'sessions',
      'start',
      '--work-item',
      OWN,
      '--max-cost-usd',
      '0.03',
      '--no-comment',
    ]);
    expect(start.code).toBe(0);
    await waitFor('the kickoff turn to be counted', () => spentOf(OWN) > 0, 240_000);
    expect(await deliver(OWN, 'e2', 'EVT-two: go on')).toBe('signalled');
    const waiting = await waitingAtBudget(OWN);
    // what crossed it was a whole turn: the spend before it was under the budget, after it at or over
    const spent = spentOf(OWN);
    const turns = workItemEvents(env, OWN, 'turn.spent');
    const last = (turns.at(-1)?.data?.['usage'] as { cost_usd: number }).cost_usd;
    expect(spent).toBeGreaterThanOrEqual(0.03);
    expect(spent - last).toBeLessThan(0.03);
    expect(waiting.detail).toBe(
      `${OWN} spent $${spent.toFixed(2)} of its $0.03 budget: \`the-loop budget raise ${OWN} --to <USD>\` lets it go on, or stop it`,
    );
    expect(await listRow(OWN)).toMatch(/waiting: budget/);
    const show = (await env.cli(['sessions', 'show', OWN])).stdout;
    expect(show).toMatch(/^status: +waiting: budget /m);
    expect(show).toContain(`spent $${spent.toFixed(2)} of its $0.03 budget`);
    const inbox = JSON.parse((await env.cli(['inbox', '--format', 'json'])).stdout) as Record<
      string,
      unknown
    >[];
    expect(inbox).toContainEqual(
      expect.objectContaining({
        session: OWN,
        reason: 'budget',
        next: `the-loop budget raise ${OWN} --to <USD>`,
      }),
    );
    // Temporal's visibility finds it by its wait, and by what it spent
    const id = workItemWorkflowId(OWN);
    const cents = Math.floor(spent * 100) / 100;
    await waitFor(
      'visibility to find the wait and the cost',
      async () => {
        const query = `WorkflowId = "${id}" AND LoopWaiting = "budget" AND LoopCostUsd >= ${cents}`;
        for await (const _ of env.client.workflow.list({ query })) return true;
        return null;
      },
      60_000,
    );

    // an event sent meanwhile stays queued: no turn runs past the budget
    expect(await deliver(OWN, 'e3', 'EVT-three: after the budget')).toBe('signalled');
    await waitFor('EVT-three to be queued', async () => (await statusOf(OWN))?.queued === 1, 180_000);
    expect(received('EVT-three')).toBe(false);

    const raise = await env.cli(['budget', 'raise', OWN, '--to', '1']);
    expect(raise.code).toBe(0);
    expect(raise.stdout).toContain(`raised ${OWN} budget from $0.03 to $1.00`);
    expect(raise.stdout).toContain(`told to go on: ${OWN}`);
    await waitFor('EVT-three to reach claude', () => received('EVT-three'), 240_000);
    await waitFor('the wait to end', () => env.record(OWN)?.waiting == null, 240_000);
    const events = workItemEvents(env, OWN, 'wait.began', 'wait.ended').map((e) => [
      e.type,
      e.data?.['reason'],
    ]);
    expect(events).toContainEqual(['wait.began', 'budget']);
    expect(events).toContainEqual(['wait.ended', 'budget']);
  });

  it("the fleet's daily budget holds every session with work to do; raising it lets them all go on", async () => {
    await waitFor(
      'the last turn of OWN to be counted',
      async () => (await statusOf(OWN))?.queued === 0,
      180_000,
    );
    const before = JSON.parse((await env.cli(['budget', '--format', 'json'])).stdout) as {
      budgets: { daily: { limit: number; spent: number } };
    };
    // the configuration's budget.daily, until today's is set
    expect(before.budgets.daily.limit).toBe(100);
    const limit = (before.budgets.daily.spent + 0.03).toFixed(2);
    expect((await env.cli(['budget', 'raise', '--daily', '--to', limit])).code).toBe(0);

    expect(await deliver(FLEET, 'f1', 'EVT-four: first', true)).toBe('started');
    expect(await deliver(FLEET, 'f2', 'EVT-five: second')).toBe('signalled');
    expect(await deliver(FLEET, 'f3', 'EVT-six: third')).toBe('signalled');
    const waiting = await waitingAtBudget(FLEET);
    expect(waiting.detail).toMatch(
      /^the fleet \(UTC day \d{4}-\d{2}-\d{2}\) spent \$\d+\.\d\d of its \$\d+\.\d\d budget/,
    );
    // the other work item, with something to do, waits at the same budget
    expect(await deliver(OWN, 'e4', 'EVT-seven: for the other one')).toBe('signalled');
    await waitingAtBudget(OWN);
    expect(received('EVT-seven')).toBe(false);
    expect(await listRow(FLEET)).toMatch(/waiting: budget/);
    const inbox = JSON.parse((await env.cli(['inbox', '--format', 'json'])).stdout) as Record<
      string,
      unknown
    >[];
    expect(inbox).toContainEqual(
      expect.objectContaining({ session: FLEET, next: 'the-loop budget raise --daily --to <USD>' }),
    );

    const raise = await env.cli(['budget', 'raise', '--daily', '--by', '10']);
    expect(raise.code).toBe(0);
    expect(raise.stdout).toMatch(/told to go on: .*github:octo\/repo#192[12].*github:octo\/repo#192[12]/);
    await waitFor('EVT-seven to reach claude', () => received('EVT-seven'), 240_000);
    await waitFor(
      'both waits to end',
      () => !env.record(OWN)?.waiting && !env.record(FLEET)?.waiting,
      240_000,
    );
    await waitFor('FLEET to deliver all it had', async () => (await statusOf(FLEET))?.queued === 0, 240_000);
    expect(received('EVT-six')).toBe(true);

    // THE_LOOP_RECORD_HISTORIES=1 refreshes the replay test's history of a session that waited at both budgets
    if (process.env.THE_LOOP_RECORD_HISTORIES === '1') {
      await waitFor('OWN to deliver all it had', async () => (await statusOf(OWN))?.queued === 0, 240_000);
      expect((await env.cli(['sessions', 'stop', '--work-item', OWN, '--no-comment'])).code).toBe(0);
      await waitFor(
        'OWN to end',
        async () => (await workflowStatus(env.client, OWN)) === 'COMPLETED',
        120_000,
      );
      await recordHistory(env.client, workItemWorkflowId(OWN), defaultHistoryFile('work-item-budget-waits'));
    }
  });
});
