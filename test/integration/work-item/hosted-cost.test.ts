import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deliverToWorkItem } from '../../../src/temporal/work-items';
import { costOf, priceTable, type TokenCounts } from '../../../src/pricing/prices';
import { addUsd } from '../../../src/pricing/money';
import type { SpendReport } from '../../../src/budget/spend';
import {
  messagesText,
  startMockAnthropic,
  type MockAnthropic,
  type MockReply,
} from '../../support/mock-anthropic';
import { setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const KEY = `sk-ant-api03-cost-test-${randomUUID()}`;
// Work-item workflow ids are server-wide and every suite shares the run's dev server: a number no other suite uses.
const ITEM = 'github:octo/repo#1901';
/** A model only this test's `pricing:` prices: the configured table, not the default one, prices the turns. */
const MODEL = 'claude-hosted-cost-test-1';
const PRICE = { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 };

/** What the mock serves each turn's model calls: the second turn asks for a tool, so it is two calls. */
const SERVED: Record<string, TokenCounts[]> = {
  'EVT-one': [
    {
      input_tokens: 1200,
      output_tokens: 300,
      cache_read_input_tokens: 5000,
      cache_creation_input_tokens: 800,
    },
  ],
  'EVT-two': [
    { input_tokens: 700, output_tokens: 90, cache_read_input_tokens: 9000, cache_creation_input_tokens: 0 },
    { input_tokens: 40, output_tokens: 120, cache_read_input_tokens: 9800, cache_creation_input_tokens: 350 },
  ],
  'EVT-three': [
    { input_tokens: 15, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  ],
};

/**
 * What hosted turns spend, with the REAL interactive Claude Code hosted in tmux against the local mock: each turn's
 * tokens come from claude's transcript at its Stop hook, priced with the configuration's `pricing:` table, and land in
 * the turn's result.json, the work item's record (`sessions list`'s COST, `sessions show`) and its event log.
 */
describe('the cost of hosted turns', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    mock.setRespond((call): MockReply => {
      const text = messagesText(call.body);
      const turn = [...text.matchAll(/EVT-[a-z]+/g)].at(-1)?.[0] ?? 'none';
      const last = call.body.messages?.at(-1)?.content;
      const afterTool = Array.isArray(last) && last.some((b) => b.type === 'tool_result');
      const served = SERVED[turn] ?? [];
      if (turn === 'EVT-two' && !afterTool)
        // a read-only tool claude runs without asking: the message is a text entry and a tool_use entry
        return {
          text: 'looking',
          toolUses: [{ name: 'Glob', input: { pattern: '*.md' } }],
          usage: served[0],
        };
      return { text: `reply to ${turn}`, usage: served.at(-1) };
    });
    env = await setupRealClaudeEnv(mock, KEY, {
      envFileLines: [`ANTHROPIC_MODEL=${MODEL}`],
      passthrough: ['ANTHROPIC_MODEL'],
      yaml: { pricing: { [MODEL]: PRICE } },
    });
  });

  afterAll(async () => {
    await env?.dispose();
    await mock?.close();
  });

  /** Turn n's result.json, once the record names the session's directory and the turn has ended. */
  const resultOf = async (n: number) => {
    const file = await waitFor(
      `result.json of turn ${n}`,
      () => {
        const dir = env.record(ITEM)?.session_dir;
        const path = dir && join(dir, 'iterations', `${String(n).padStart(4, '0')}_event`, 'result.json');
        return path && existsSync(path) ? path : null;
      },
      180_000,
    );
    return JSON.parse(readFileSync(file, 'utf8')) as { success: boolean; usage?: Record<string, number> };
  };

  it("three turns: the record's cost is the served usage × the configured price, to the nano-dollar", async () => {
    const turns = ['EVT-one', 'EVT-two', 'EVT-three'];
    for (const [i, turn] of turns.entries()) {
      const outcome = await deliverToWorkItem(
        env.client,
        env.queues,
        ITEM,
        { id: `e${i}`, text: `${turn}: go on`, source: 'test' },
        i === 0,
      );
      expect(outcome).toBe(i === 0 ? 'started' : 'signalled');
      expect(await resultOf(i + 1)).toMatchObject({ success: true });
    }
    const price = priceTable({ [MODEL]: PRICE })[MODEL] ?? PRICE;
    const served = turns.flatMap((t) => SERVED[t] ?? []);
    const expectedUsd = served.reduce((sum, tokens) => addUsd(sum, costOf(tokens, price)), 0);
    const total = (key: keyof TokenCounts) => served.reduce((sum, t) => sum + t[key], 0);

    const spent = await waitFor(
      'the record to count three turns',
      () => {
        const s = env.record(ITEM)?.spent;
        return s && s.usage.num_turns === 3 ? s : null;
      },
      120_000,
    );
    expect(spent.usage).toMatchObject({
      input_tokens: total('input_tokens'),
      output_tokens: total('output_tokens'),
      cache_read_input_tokens: total('cache_read_input_tokens'),
      cache_creation_input_tokens: total('cache_creation_input_tokens'),
      cost_usd: expectedUsd,
    });
    expect(spent.unpriced_models).toEqual([]);
    // every model call the mock served was for this model, and in a turn
    const calls = mock.requests.filter((r) => r.kind === 'agent');
    expect(new Set(calls.map((r) => r.body?.model))).toEqual(new Set([MODEL]));
    expect(calls).toHaveLength(served.length);

    // turn 2 by itself: two calls, its tool_use message counted once
    const second = await resultOf(2);
    expect(second.usage).toMatchObject({ input_tokens: 740, output_tokens: 210, num_turns: 1 });
    expect(second.usage?.cost_usd).toBe(
      addUsd(costOf(SERVED['EVT-two']![0]!, price), costOf(SERVED['EVT-two']![1]!, price)),
    );
    const events = workItemEvents(env, ITEM, 'turn.spent');
    expect(events.map((e) => e.data?.iteration)).toEqual([1, 2, 3]);

    // the-loop budget: the three turns under the work item and under today's day
    const budget = await env.cli(['budget', '--format', 'json']);
    expect(budget.code).toBe(0);
    const report = JSON.parse(budget.stdout) as SpendReport;
    expect(report.sessions).toContainEqual({
      kind: 'work-item',
      session: ITEM,
      cost_usd: expectedUsd,
      turns: 3,
      unpriced_turns: 0,
    });
    expect(report.days.reduce((sum, d) => sum + d.turns, 0)).toBe(report.total.turns);
    expect((await env.cli(['budget'])).stdout).toMatch(
      new RegExp(
        `^github:octo/repo#1901 +work-item +\\$${expectedUsd.toFixed(2).replace('.', '\\.')} +3$`,
        'm',
      ),
    );

    const list = await env.cli(['sessions', 'list']);
    const row = list.stdout.split('\n').find((l) => l.startsWith(ITEM)) ?? '';
    expect(row).toContain(`$${expectedUsd.toFixed(2)}`);
    const show = await env.cli(['sessions', 'show', ITEM]);
    expect(show.stdout).toMatch(
      new RegExp(
        `^cost: +\\$${expectedUsd.toFixed(2).replace('.', '\\.')} · 3 turns · ${(total('input_tokens') + total('cache_read_input_tokens') + total('cache_creation_input_tokens')).toLocaleString('en-US')} tokens in / ${total('output_tokens')} out$`,
        'm',
      ),
    );
  });
});
