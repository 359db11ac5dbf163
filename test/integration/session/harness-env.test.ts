import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { parseEnvFile } from '../../../src/work-item/env';
import { iterationPaths } from '../../../src/session/paths';
import {
  startTestWorker,
  testClient,
  testConfig,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';

/**
 * A goal loop's harness gets the environment policy of hosted sessions. The worker runs in this process, so the
 * harness would inherit this process's environment, credentials included.
 */
describe('goal-loop harness environment', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  const saved = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), 'loopy-harness-env-'));
  const envFile = join(dir, 'the-loop.env');
  const config = testConfig({
    temporal: { taskQueue: uniqueQueue('harness-env') },
    worker: { hostId: 'envhost' },
    env: { file: envFile },
    harness: { command: { env: ['OPENAI_API_KEY'] } },
  });

  beforeAll(async () => {
    writeFileSync(envFile, 'OPENAI_API_KEY=sk-from-the-env-file\nFILE_ONLY_SECRET=kept-out\n');
    Object.assign(process.env, {
      GH_TOKEN: 'ghp_of_the_worker',
      THE_LOOP_WEBHOOK_SECRET: 'webhook-secret-of-the-worker',
      ANTHROPIC_API_KEY: 'sk-ant-of-the-worker',
      OPENAI_API_KEY: 'sk-of-the-worker',
      FILE_ONLY_SECRET: 'also-in-the-worker',
      HARNESS_ENV_PROBE: 'not a credential',
    });
    ({ client, connection } = await testClient());
    worker = await startTestWorker({ config, taskQueue: config.temporal.taskQueue, hostId: 'envhost' });
  });
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    process.env = saved;
  });

  it('a command harness holds no credential of the worker but the one harness.command.env lists', async () => {
    const input = buildSessionInput(config, {
      goal: 'print the environment',
      cwd: mkdtempSync(join(tmpdir(), 'loopy-cwd-')),
      harness: 'command',
      harnessCommand: 'env > {iteration_dir}/harness_env.txt && echo printed',
      maxIterations: 1,
    });
    const result = await (await startGoalSession(client, input)).result();
    expect(result.iterations).toBe(1);

    const printed = readFileSync(
      join(iterationPaths(input.sessionDir, 1, 'planner').dir, 'harness_env.txt'),
      'utf8',
    );
    const env = parseEnvFile(printed);
    expect(env.get('LOOPY_ITERATION')).toBe('1'); // it is the harness's environment
    for (const name of ['GH_TOKEN', 'THE_LOOP_WEBHOOK_SECRET', 'ANTHROPIC_API_KEY', 'FILE_ONLY_SECRET']) {
      expect([name, env.has(name)]).toEqual([name, false]);
    }
    expect(env.get('OPENAI_API_KEY')).toBe('sk-from-the-env-file'); // listed: env.file's value first
    expect(env.get('HARNESS_ENV_PROBE')).toBe('not a credential');
    // and no value of a kept-out name anywhere in it
    for (const secret of ['ghp_of_the_worker', 'webhook-secret-of-the-worker', 'sk-ant-of-the-worker']) {
      expect(printed.includes(secret)).toBe(false);
    }
  });
});
