import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';

import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { parseRoutinesYaml } from '../../../src/config/routines';
import { resumeSignal } from '../../../src/workflows/goal-session/messages';
import { readJsonFile, readJsonIfExists } from '../../../src/session/json-file';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';
import { resultFileSchema, sessionStateFileSchema } from '../../../src/session/schemas';
import {
  codexEnv,
  inputText,
  MOCK_OPENAI_KEY_ENV,
  realCodexBin,
  startMockOpenAI,
  type MockOpenAI,
} from '../../support/mock-openai';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';
import { waitFor } from '../../support/wait';

// codex runs each turn's commands in its sandbox: on a loaded machine a two-turn loop outlasts the default 2 minutes
jest.setTimeout(360_000);

/** A goal loop driving the REAL codex exec against the mock Responses API (worker in this process: env inherited). */
describe('goal loop with the real codex CLI', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  let mock: MockOpenAI;
  const saved = { ...process.env };
  /** The mock's model, priced by the configuration (the default table has no price for it). */
  const PRICE = { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 0 };
  const config = testConfig({
    // The mock's provider reads its key from MOCK_OPENAI_API_KEY, which is no name of codex's own: listed, as a user of
    // a custom provider lists its env_key.
    harness: { codex: { command: realCodexBin(), env: ['OPENAI_API_KEY', MOCK_OPENAI_KEY_ENV] } },
    pricing: { 'gpt-5.5': PRICE },
  });

  beforeAll(async () => {
    mock = await startMockOpenAI();
    const { env } = codexEnv(mock);
    Object.assign(process.env, {
      HOME: env.HOME,
      CODEX_HOME: env.CODEX_HOME,
      MOCK_OPENAI_API_KEY: env.MOCK_OPENAI_API_KEY,
    });
    ({ client, connection } = await testClient());
    worker = await startTestWorker({ config });
  });
  /** A codex session on this test's worker; `routines` continues one conversation from turn to turn. */
  const routines = () =>
    parseRoutinesYaml(
      [
        'workflows:',
        '  - id: worker',
        '    prompt: "Next step of {goal}"',
        '    harness_options: { conversation: continue }',
      ].join('\n'),
      'wf.yaml',
    );
  const sessionInput = (options: Omit<Parameters<typeof buildSessionInput>[1], 'harness'>) =>
    buildSessionInput(
      {
        ...config,
        temporal: { ...config.temporal, taskQueue: worker.taskQueue },
        worker: { ...config.worker, hostId: 'testhost' },
      },
      { ...options, harness: 'codex' },
    );

  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  it('resumes its thread across iterations and records each turn its own usage', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'codex-loop-cwd-'));
    execFileSync('git', ['init', '-q'], { cwd });
    const input = sessionInput({ goal: 'a codex thread', cwd, maxIterations: 2, routines: routines() });
    mock.reply(
      { text: 'first codex turn: persimmon', usage: { input_tokens: 1000, output_tokens: 300 } },
      { text: 'second codex turn', usage: { input_tokens: 500, output_tokens: 50 } },
    );
    const handle = await startGoalSession(client, input);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');

    expect(inputText(mock.responseCalls()[1] ?? null)).toContain('first codex turn: persimmon');
    const first = readJsonFile(iterationPaths(input.sessionDir, 1, 'worker').result, resultFileSchema);
    const second = readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').result, resultFileSchema);
    expect(first).toMatchObject({ success: true, text: 'first codex turn: persimmon' });
    expect(second).toMatchObject({ success: true, harness_session_id: first.harness_session_id });
    // codex reports 1500 in after the second turn (cumulative over the thread); the turn itself used 500.
    const state = readJsonFile(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
    expect(state.history.map((h) => h.usage?.input_tokens)).toEqual([1000, 500]);
    expect(state.usage.total).toMatchObject({ input_tokens: 1500, output_tokens: 350 });
    // priced by the model its thread ran (gpt-5.5, read from codex's rollout) with the configured table
    expect(state.history.map((h) => h.usage?.cost_usd)).toEqual([
      (1000 * 2 + 300 * 10) / 1e6,
      (500 * 2 + 50 * 10) / 1e6,
    ]);
    expect(state.usage.total.cost_usd).toBe(0.0065);
    expect(first.unpriced_models).toBeUndefined();
  });

  it('a failed turn in the middle of a conversation: every served token is recorded once (1.00x served)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'codex-loop-failed-'));
    const input = sessionInput({
      goal: 'a thread with a failure',
      cwd,
      maxIterations: 3,
      routines: routines(),
    });
    const served = [
      { input_tokens: 1000, cached_input_tokens: 0, output_tokens: 100 },
      { input_tokens: 2000, cached_input_tokens: 0, output_tokens: 200 },
      { input_tokens: 4000, cached_input_tokens: 0, output_tokens: 400 },
    ];
    mock.reply(
      { text: 'turn one', usage: served[0] },
      // turn two is served a tool call, then its stream fails: codex --json reports no usage for the turn
      { calls: [{ name: 'exec_command', arguments: { cmd: 'true' } }], usage: served[1] },
      { failure: 'the stream broke' },
      { text: 'turn three', usage: served[2] },
    );
    const handle = await startGoalSession(client, input);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    const second = readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').result, resultFileSchema);
    expect(second.success).toBe(false);
    const state = readJsonFile(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
    // codex resends the conversation each turn, and the mock's usage is what each response was served
    expect(state.history.map((h) => h.usage?.input_tokens)).toEqual([1000, 2000, 4000]);
    expect(state.usage.total).toMatchObject({ input_tokens: 7000, output_tokens: 700 });
    expect(state.usage.total.cost_usd).toBe((7000 * 2 + 700 * 10) / 1e6);
  });

  it('under the defaults, codex writes control.json from a directory that is no git repository; cached input is cheaper', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'codex-loop-plain-'));
    const input = sessionInput({ goal: 'stop when done', cwd, maxIterations: 3 });
    const control = sessionPaths(input.sessionDir).control;
    mock.reply(
      {
        calls: [
          {
            name: 'exec_command',
            arguments: { cmd: `printf '{"state":"stopped","reason":"goal met"}' > '${control}'` },
          },
        ],
        usage: { input_tokens: 500, cached_input_tokens: 0, output_tokens: 40 },
      },
      {
        text: 'stopped the loop',
        usage: { input_tokens: 4000, cached_input_tokens: 3000, output_tokens: 100 },
      },
    );
    const handle = await startGoalSession(client, input);
    const result = await handle.result();
    expect(result.stop).toMatchObject({ kind: 'control', reason: 'goal met' });
    expect(result.iterations).toBe(1);
    const state = readJsonFile(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
    // codex's 4500 input tokens (its two responses) include 3000 cached ones: 1500 at $2, 3000 at $0.20, 140 out at $10
    expect(state.usage.total).toMatchObject({
      input_tokens: 1500,
      cache_read_input_tokens: 3000,
      output_tokens: 140,
    });
    expect(state.usage.total.cost_usd).toBe((1500 * 2 + 3000 * 0.2 + 140 * 10) / 1e6);
  });

  it("commands codex's sandbox refused are recorded as the turn's permission denials; a turn refused every one waits for a person", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'codex-loop-refused-'));
    const input = sessionInput({ goal: 'write outside', cwd, maxIterations: 2, routines: routines() });
    const outside = '/usr/share/the-loop-sandbox-test';
    mock.reply(
      // turn 1: one command refused (outside the workspace), one that ran
      {
        calls: [
          { name: 'exec_command', arguments: { cmd: `touch ${outside}` } },
          { name: 'exec_command', arguments: { cmd: 'touch inside.txt' } },
        ],
      },
      { text: 'wrote what I could' },
      // turn 2: every command refused
      { calls: [{ name: 'exec_command', arguments: { cmd: `mkdir ${outside}` } }] },
      { text: 'could not write' },
    );
    const handle = await startGoalSession(client, input);
    // the second turn failed on its refusals: the session waits for a person (session.waitOnPermission)
    const paused = await waitFor(
      'the session to wait on its refused turn',
      () => {
        const state = readJsonIfExists(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
        return state?.status === 'paused' && state.dispatch.denied ? state : null;
      },
      240_000,
    );
    expect(paused.status).toBe('paused');
    expect(paused.dispatch.denied).toMatchObject({
      harness: 'codex',
      tools: ['exec_command'],
      count: 1,
      iteration: 2,
    });
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    const first = readJsonFile(iterationPaths(input.sessionDir, 1, 'worker').result, resultFileSchema);
    expect(first).toMatchObject({
      success: true,
      permission_denials: { count: 1, tools: ['exec_command'] },
    });
    const second = readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').result, resultFileSchema);
    expect(second).toMatchObject({
      success: false,
      permission_denials: { count: 1, tools: ['exec_command'] },
    });
    expect(second.error).toBe(
      `codex's sandbox refused every command it ran (1: mkdir ${outside}); let it write there with harness.codex.permissionMode (--sandbox) or the routine's permission_mode`,
    );
  });
});
