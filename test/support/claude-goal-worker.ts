import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../src/cli/session-input';
import type { TheLoopConfig } from '../../src/config/schema';
import { claudeEnv, startMockAnthropic, type MockAnthropic } from './mock-anthropic';
import { startTestWorker, testClient, type TestWorker } from './temporal';

export interface ClaudeGoalWorker {
  client: Client;
  worker: TestWorker;
  mock: MockAnthropic;
  /** A goal session's input on this worker's queue, in a new scratch directory. */
  sessionInput(
    goal: string,
    extra?: Partial<Parameters<typeof buildSessionInput>[1]>,
  ): ReturnType<typeof buildSessionInput>;
}

/**
 * For the describe block that calls it: a worker in this process on `config`, and the mock Anthropic API its real
 * claude talks to. The harness inherits this process's environment (the mock's URL, a dummy key, a scratch HOME),
 * set before the block's tests and restored after them. The fields are there once beforeAll has run.
 */
export function useClaudeGoalWorker(config: TheLoopConfig): ClaudeGoalWorker {
  const saved = { ...process.env };
  let connection: Connection;
  const used = {
    sessionInput(goal, extra = {}) {
      const cwd = mkdtempSync(join(tmpdir(), 'claude-loop-cwd-'));
      return buildSessionInput(
        {
          ...config,
          temporal: { ...config.temporal, taskQueue: used.worker.taskQueue },
          worker: { ...config.worker, hostId: 'testhost' },
        },
        { goal, cwd, harness: 'claude', ...extra },
      );
    },
  } as ClaudeGoalWorker;
  beforeAll(async () => {
    used.mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(used.mock).env);
    ({ client: used.client, connection } = await testClient());
    used.worker = await startTestWorker({ config });
  });
  afterAll(async () => {
    await used.worker?.shutdown();
    await connection?.close();
    await used.mock?.close();
    process.env = saved;
  });
  return used;
}
