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
 * A goal loop's harness gets an allow-listed environment: the base set, its own names, and what
 * harness.<name>.env lists. The worker runs in this process, so the harness would otherwise inherit this process's
 * environment, secrets included.
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
    harness: { command: { env: ['OPENAI_API_KEY', 'HARNESS_ENV_LISTED'] } },
  });

  beforeAll(async () => {
    writeFileSync(envFile, 'OPENAI_API_KEY=sk-from-the-env-file\nFILE_ONLY_SECRET=kept-out\n');
    Object.assign(process.env, {
      GH_TOKEN: 'ghp_of_the_worker',
      THE_LOOP_WEBHOOK_SECRET: 'webhook-secret-of-the-worker',
      ANTHROPIC_API_KEY: 'sk-ant-of-the-worker',
      OPENAI_API_KEY: 'sk-of-the-worker',
      FILE_ONLY_SECRET: 'also-in-the-worker',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-of-the-worker',
      NPM_TOKEN: 'npm-token-of-the-worker',
      DATABASE_URL: 'postgres://worker:pw@db/prod',
      THE_LOOP_CONFIG: join(dir, 'config.yaml'),
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      HARNESS_ENV_PROBE: 'not listed',
      HARNESS_ENV_LISTED: 'listed by harness.command.env',
    });
    ({ client, connection } = await testClient());
    worker = await startTestWorker({ config, taskQueue: config.temporal.taskQueue, hostId: 'envhost' });
  });
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    process.env = saved;
  });

  it('a command harness holds the base set and what harness.command.env lists, no other name of the worker', async () => {
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
    const keptOut = [
      ...['GH_TOKEN', 'THE_LOOP_WEBHOOK_SECRET', 'ANTHROPIC_API_KEY', 'FILE_ONLY_SECRET'],
      ...['AWS_SECRET_ACCESS_KEY', 'NPM_TOKEN', 'DATABASE_URL', 'THE_LOOP_CONFIG', 'THE_LOOP_STATE_DIR'],
      'HARNESS_ENV_PROBE',
    ];
    for (const name of keptOut) expect([name, env.has(name)]).toEqual([name, false]);
    expect(env.get('HOME')).toBe(process.env.HOME);
    expect(env.get('PATH')?.split(':')).toEqual(expect.arrayContaining((process.env.PATH ?? '').split(':')));
    expect(env.get('OPENAI_API_KEY')).toBe('sk-from-the-env-file'); // listed: env.file's value first
    expect(env.get('HARNESS_ENV_LISTED')).toBe('listed by harness.command.env');
    // and no value of a kept-out name anywhere in it
    const secrets = ['ghp_of_the_worker', 'webhook-secret-of-the-worker', 'sk-ant-of-the-worker'];
    for (const secret of [...secrets, 'aws-secret-of-the-worker', 'npm-token-of-the-worker', 'worker:pw']) {
      expect([secret, printed.includes(secret)]).toEqual([secret, false]);
    }
  });
});
