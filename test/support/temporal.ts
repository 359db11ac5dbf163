import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { ActivityDeps } from '../../src/activities/deps';
import type { TemporalTarget } from '../../src/temporal/target';
import { configSchema, type TheLoopConfig } from '../../src/config/schema';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startWorkers, type RunningWorkers } from '../../src/worker/run-worker';

let runtimeInstalled = false;
/** Worker state changes at INFO drown test output; warnings and errors still show. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}

export interface TestServer {
  address: string;
  uiAddress: string;
  pid: number;
  dir: string;
  bundlePath: string;
  cliPath: string;
}

/** The dev server the integration project's global setup started for this run. */
export function testServer(): TestServer {
  const raw = process.env.THE_LOOP_TEST_SERVER;
  if (!raw)
    throw new Error('THE_LOOP_TEST_SERVER is not set: run integration tests through jest (global setup)');
  return JSON.parse(raw) as TestServer;
}

export function testTarget(): TemporalTarget {
  const { address } = testServer();
  return { address, namespace: 'default', connectionOptions: { address }, source: 'config' };
}

export async function testClient(): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: testServer().address });
  return { client: new Client({ connection, namespace: 'default' }), connection };
}

export function uniqueQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function testConfig(overrides: Partial<Record<keyof TheLoopConfig, unknown>> = {}): TheLoopConfig {
  return configSchema.parse(overrides);
}

export interface TestWorker extends RunningWorkers {
  taskQueue: string;
  deps: ActivityDeps;
}

/** A worker on its own task queue (tests isolate themselves by queue), using the run's single workflow bundle. */
export async function startTestWorker(options: {
  taskQueue?: string;
  config?: TheLoopConfig;
  deps?: Partial<ActivityDeps>;
  hostId?: string;
}): Promise<TestWorker> {
  quietRuntime();
  const taskQueue = options.taskQueue ?? uniqueQueue();
  const config = options.config ?? testConfig();
  const deps: ActivityDeps = {
    config,
    stateDir: mkdtempSync(join(tmpdir(), 'the-loop-state-')),
    hostId: options.hostId ?? 'testhost',
    ...options.deps,
  };
  const running = await startWorkers({
    target: testTarget(),
    taskQueue,
    deps,
    workflowBundlePath: testServer().bundlePath,
    shutdownGraceTime: '2s',
  });
  return { ...running, taskQueue, deps };
}

/**
 * A worker that runs only workflows, on `taskQueue`, and no activities: a session makes progress up to its next
 * activity and waits there, as it does while its host's worker is gone.
 */
export async function startWorkflowsOnlyWorker(taskQueue: string): Promise<{ shutdown(): Promise<void> }> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: testServer().address });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: testServer().bundlePath },
    // the session's next worker takes over its workflow tasks soon after this one stops
    stickyQueueScheduleToStartTimeout: '1s',
  });
  const running = worker.run();
  return {
    async shutdown() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
