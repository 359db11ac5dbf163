import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';

import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { parseRoutinesYaml } from '../../../src/config/routines';
import { readJsonFile } from '../../../src/session/json-file';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';
import { resultFileSchema, sessionStateFileSchema } from '../../../src/session/schemas';
import {
  codexEnv,
  inputText,
  realCodexBin,
  startMockOpenAI,
  type MockOpenAI,
} from '../../support/mock-openai';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';

/** A goal loop driving the REAL codex exec against the mock Responses API (worker in this process: env inherited). */
describe('goal loop with the real codex CLI', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  let mock: MockOpenAI;
  const saved = { ...process.env };
  const config = testConfig({ harness: { codex: { command: realCodexBin() } } });

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
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  it('resumes its thread across iterations and records each turn its own usage', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'codex-loop-cwd-'));
    execFileSync('git', ['init', '-q'], { cwd });
    const routines = parseRoutinesYaml(
      [
        'workflows:',
        '  - id: worker',
        '    prompt: "Next step of {goal}"',
        '    harness_options: { conversation: continue }',
      ].join('\n'),
      'wf.yaml',
    );
    const input = buildSessionInput(
      {
        ...config,
        temporal: { ...config.temporal, taskQueue: worker.taskQueue },
        worker: { ...config.worker, hostId: 'testhost' },
      },
      { goal: 'a codex thread', cwd, harness: 'codex', maxIterations: 2, routines },
    );
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
  });
});
