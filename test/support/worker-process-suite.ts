// The fixture of a describe block whose worker processes run the REAL claude CLI against the mock Anthropic API in
// this process (they inherit its environment: the mock's URL, a dummy key, a scratch HOME), on the test run's
// Temporal server. The block's tests push the worker processes they start, and the process groups they find, to be
// killed after each test.
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import type { Client, Connection } from '@temporalio/client';
import { claudeEnv, startMockAnthropic, type MockAnthropic } from './mock-anthropic';
import { testClient } from './temporal';
import { assertFreshBuild, type WorkerProcess } from './worker-processes';

export interface WorkerProcessSuite {
  readonly client: Client;
  readonly mock: MockAnthropic;
  /** Killed (SIGKILL) after each test. */
  readonly workers: WorkerProcess[];
  /** Process groups a test found (a harness, an orphan): killed after each test if they still run. */
  readonly groups: number[];
}

export function workerProcessSuite(
  options: { allowedTools?: string[]; freshBuild?: string[]; before?: () => void } = {},
): WorkerProcessSuite {
  let client: Client | undefined;
  let connection: Connection | undefined;
  let mock: MockAnthropic | undefined;
  const saved = { ...process.env };
  const workers: WorkerProcess[] = [];
  const groups: number[] = [];

  beforeAll(async () => {
    options.before?.();
    assertFreshBuild();
    if (options.freshBuild) assertFreshBuild(options.freshBuild);
    mock = await startMockAnthropic();
    const allowed = options.allowedTools ? { allowedTools: options.allowedTools } : {};
    Object.assign(process.env, claudeEnv(mock, allowed).env);
    ({ client, connection } = await testClient());
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
    for (const group of groups.splice(0)) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  afterAll(async () => {
    await connection?.close();
    await mock?.close();
    process.env = saved;
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not set up yet: use it inside a test`);
    return value;
  };
  return {
    get client() {
      return ready(client, 'the Temporal client');
    },
    get mock() {
      return ready(mock, 'the mock Anthropic API');
    },
    workers,
    groups,
  };
}
