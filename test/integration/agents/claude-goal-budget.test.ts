import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonIfExists } from '../../../src/session/json-file';
import { readJsonl } from '../../../src/session/jsonl';
import { sessionPaths } from '../../../src/session/paths';
import { sessionEventSchema, sessionStateFileSchema } from '../../../src/session/schemas';
import { realClaudeBin } from '../../support/mock-anthropic';
import { runCli } from '../../support/cli';
import { useClaudeGoalWorker } from '../../support/claude-goal-worker';
import { testConfig, testServer } from '../../support/temporal';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

/**
 * The fleet's daily budget over a goal loop driving the REAL claude CLI against the mock: the turn that spends it
 * finishes, the next waits as `waiting: budget` (state.json, `loopy list`, the inbox, LoopWaiting), and
 * `the-loop budget raise --daily` lets the session go on.
 */
describe("a goal loop at the fleet's budget", () => {
  const stateRoot = mkdtempSync(join(tmpdir(), 'goal-budget-state-'));
  const raw = {
    harness: { claude: { command: realClaudeBin() } },
    state: { root: stateRoot },
    budget: { daily: 0.1 },
  };
  const used = useClaudeGoalWorker(testConfig(raw));

  it('the turn that spends it finishes; the next waits at it until budget raise --daily', async () => {
    const { client, mock } = used;
    const input = used.sessionInput('spend', { maxIterations: 2 });
    const { cwd } = input;
    expect(input.fleetBudget).toBe(true);
    // the default model's prices: 20k in + 8k out cost $0.30, over the fleet's $0.10 for the day
    mock.reply(
      { text: 'expensive', usage: { input_tokens: 20_000, output_tokens: 8_000 } },
      { text: 'after the raise' },
    );
    const before = mock.agentCalls().length;
    const handle = await startGoalSession(client, input);
    const waiting = await waitFor(
      'the session to wait at the budget',
      () => {
        const state = readJsonIfExists(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
        return state?.status === 'paused' && state.dispatch.budget ? state : null;
      },
      120_000,
    ).catch((error: unknown) => {
      const state = readJsonIfExists(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
      const ledger = readdirSync(stateRoot, { recursive: true }).join(', ');
      throw new Error(`${String(error)}\nstate ${JSON.stringify(state)}\nstate root: ${ledger}`);
    });
    expect(waiting.iteration).toBe(1);
    expect(waiting.dispatch.budget?.detail).toMatch(
      /^the fleet \(UTC day \d{4}-\d\d-\d\d\) spent \$0\.30 of its \$0\.10 budget: `the-loop budget raise --daily --to <USD>`/,
    );
    expect(mock.agentCalls().length - before).toBe(1); // nothing runs while it waits

    const configFile = join(cwd, 'the-loop.yaml');
    writeFileSync(
      configFile,
      stringify({ ...raw, temporal: { taskQueue: input.taskQueue }, worker: { hostId: 'testhost' } }),
    );
    const cli = (name: 'loopy' | 'the-loop', args: string[]) =>
      runCli(args, {
        env: { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile },
        cwd,
        name,
      });
    const list = await cli('loopy', ['list', '--status', 'waiting']);
    expect(list.stdout).toMatch(new RegExp(`^${input.sessionId} +waiting: budget `, 'm'));
    const inbox = await cli('the-loop', ['inbox', '--format', 'json']);
    const entry = (JSON.parse(inbox.stdout) as { session: string; reason: string; next: string }[]).find(
      (e) => e.session === input.sessionId,
    );
    expect(entry).toMatchObject({ reason: 'budget', next: 'the-loop budget raise --daily --to <USD>' });
    // budget raise finds it through Temporal's visibility: the LoopWaiting search attribute
    const query = `LoopWaiting = "budget" AND WorkflowId = "${input.sessionId}"`;
    await waitFor(
      'LoopWaiting = budget',
      async () => {
        for await (const _ of client.workflow.list({ query })) return true;
        return null;
      },
      120_000,
    );

    const raise = await cli('the-loop', ['budget', 'raise', '--daily', '--to', '5']);
    expect(raise.stderr).toBe('');
    expect(raise.code).toBe(0);
    expect(raise.stdout).toContain(input.sessionId);
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    expect(mock.agentCalls().length - before).toBe(2);
    const types = readJsonl(sessionPaths(input.sessionDir).events, sessionEventSchema).map((e) => e.type);
    expect(types.indexOf('budget_reached')).toBeGreaterThan(types.indexOf('iteration_finished'));
    expect(types.indexOf('session_resumed')).toBeGreaterThan(types.indexOf('budget_reached'));
  });
});
