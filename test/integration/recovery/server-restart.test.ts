import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import type { GoalSessionResult } from '../../../src/workflows/goal-session/types';
import {
  spawnDevServer,
  stopProcess,
  type DevServerHandle,
  waitForServer,
} from '../../../src/service/dev-server';
import { freePort } from '../../support/dev-server';
import { claudeEnv, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import {
  endedIterations,
  recoveryConfig,
  recoveryConfigObject,
  sessionEvents,
  sessionState,
} from '../../support/recovery';
import { after, scriptGoalLoops } from '../../support/scripted-agent';
import { testServer, uniqueQueue } from '../../support/temporal';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';
import { waitFor } from '../../support/wait';

/** The worker process runs the REAL claude against the mock Anthropic API in this process (its environment). */
describe('the Temporal dev server killed with SIGKILL and started again on the same SQLite file', () => {
  let server: DevServerHandle | null = null;
  let worker: WorkerProcess | null = null;
  let mock: MockAnthropic;
  const saved = { ...process.env };

  beforeAll(async () => {
    assertFreshBuild();
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock).env);
  });
  afterAll(async () => {
    await mock.close();
    process.env = saved;
    if (worker) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    if (server) await stopProcess(server.pid, 5000);
  });

  it('the session finishes and events.jsonl has no gap in iteration numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-restart-'));
    const [port, uiPort] = [await freePort(), await freePort()];
    const serverOptions = {
      cliPath: testServer().cliPath,
      dbFile: join(dir, 'temporal.db'),
      logFile: join(dir, 'temporal.log'),
      port,
      uiPort,
      detached: false,
    };
    server = spawnDevServer(serverOptions);
    await waitForServer(server.address, server.pid, 120_000);

    const played = scriptGoalLoops(mock, () => ({ until: after(1500), costUsd: 0.01 }));
    const taskQueue = uniqueQueue('restart');
    const options = { taskQueue, hostId: 'restarthost', heartbeatTimeout: '30s', address: server.address };
    worker = spawnWorkerProcess({
      address: server.address,
      taskQueue,
      hostId: 'restarthost',
      bundlePath: testServer().bundlePath,
      config: recoveryConfigObject(options),
    });
    await worker.ready;
    const input = buildSessionInput(recoveryConfig(options), {
      goal: 'outlive the server',
      cwd: mkdtempSync(join(tmpdir(), 'loopy-restart-')),
      harness: 'claude',
      maxIterations: 6,
    });
    let connection = await Connection.connect({ address: server.address });
    await startGoalSession(new Client({ connection, namespace: 'default' }), input);
    await connection.close();

    // Mid-session: the third turn is running.
    await waitFor('the third turn', () => played.turns.length >= 3, 60_000);
    process.kill(server.pid, 'SIGKILL');
    await waitFor(
      'the server to die',
      () => {
        try {
          process.kill(server?.pid ?? 0, 0);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    server = spawnDevServer(serverOptions);
    await waitForServer(server.address, server.pid, 120_000);

    connection = await Connection.connect({ address: server.address });
    try {
      const handle = new Client({ connection, namespace: 'default' }).workflow.getHandle(input.sessionId);
      const result = (await handle.result()) as GoalSessionResult;
      expect(result.iterations).toBe(6);
      expect(result.stop.kind).toBe('max_iterations');
      if (process.env.THE_LOOP_RECORD_HISTORIES === '1') {
        const recordClient = new Client({ connection, namespace: 'default' });
        await recordHistory(recordClient, input.sessionId, defaultHistoryFile('server-restart'));
      }
    } finally {
      await connection.close();
    }
    const events = sessionEvents(input.sessionDir);
    expect(endedIterations(events)).toEqual([1, 2, 3, 4, 5, 6]);
    const started = [
      ...new Set(events.filter((e) => e.type === 'iteration_started').map((e) => e.iteration)),
    ];
    expect(started).toEqual([1, 2, 3, 4, 5, 6]);
    const state = sessionState(input.sessionDir);
    expect(state?.history.map((h) => h.iteration)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(state?.status).toBe('stopped');
    // Every turn ran exactly once (none lost, none run twice).
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
