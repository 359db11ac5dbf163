import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import type { TheLoopConfig } from '../../../src/config/schema';
import {
  pauseSignal,
  resumeSignal,
  statusQuery,
  stopSignal,
} from '../../../src/workflows/goal-session/messages';
import { LoopStatus } from '../../../src/workflows/search-attributes';
import { runCli } from '../../support/cli';
import { harnessRuns, liveGroup, SLEEPING_HARNESS, sessionState } from '../../support/recovery';
import {
  startTestWorker,
  testClient,
  testConfig,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';
import { waitFor } from '../../support/wait';

// generous: each test waits on conditions that a loaded machine reaches slowly, never on a time bound
jest.setTimeout(300_000);
const WAIT_MS = 120_000;

/**
 * Turns whose harness sleeps until it is stopped (test/support/bin/sleeping-harness): a turn holds its worker's
 * activity slot for as long as the test wants, and never ends by itself.
 */
describe('a session waiting for a slot shows as queued; a pause shows on disk at once', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker | null = null;
  const handles: WorkflowHandle[] = [];

  const configWith = (slots: number, heartbeatTimeout = '10s'): TheLoopConfig => {
    const base = testConfig({
      harness: { claude: { command: SLEEPING_HARNESS } },
      worker: { heartbeatTimeout, hostId: 'slots', maxConcurrentActivityTaskExecutions: slots },
    });
    return { ...base, temporal: { ...base.temporal, taskQueue: uniqueQueue('slots') } };
  };
  const startWorker = async (config: TheLoopConfig) => {
    worker = await startTestWorker({ config, hostId: 'slots', taskQueue: config.temporal.taskQueue });
  };
  const start = async (config: TheLoopConfig, goal: string) => {
    const input = buildSessionInput(config, {
      goal,
      cwd: mkdtempSync(join(tmpdir(), 'loopy-slots-')),
      harness: 'claude',
      maxIterations: 1,
    });
    const handle = await startGoalSession(client, input);
    handles.push(handle);
    return { input, handle };
  };
  /** The turn's harness runs: its process.json is written and its process group lives. */
  const turnRunning = (sessionDir: string) =>
    waitFor('the turn', () => harnessRuns(sessionDir).find((run) => liveGroup(run.pgid).length > 0), WAIT_MS);
  const loopStatus = async (handle: WorkflowHandle) =>
    (await handle.describe()).typedSearchAttributes.get(LoopStatus);
  /** The Web UI's current details, as it reads them. */
  const currentDetails = async (handle: WorkflowHandle) =>
    (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
  const loopyStatus = async (sessionId: string, cwd: string) => {
    const result = await runCli(['status', sessionId], {
      env: { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: '' },
      cwd,
      name: 'loopy',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  /** Returns right after a heartbeat of the running turn that came 4 s or more after the one before. */
  const heartbeatsRare = async (handle: WorkflowHandle): Promise<void> => {
    let last: number | null = null;
    await waitFor(
      'heartbeats 4 s apart',
      async () => {
        const beat = (await handle.describe()).raw.pendingActivities?.[0]?.lastHeartbeatTime;
        const at = optionalTsToMs(beat) ?? null;
        const rare = last !== null && at !== null && at !== last && at - last >= 4000;
        if (at !== null && at !== last) last = at;
        return rare;
      },
      WAIT_MS,
      100,
    );
  };

  /** What each stopRunningTurn activity of the session returned, from its history. */
  const stopRunningTurnResults = async (handle: WorkflowHandle): Promise<unknown[]> => {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Set(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'stopRunningTurn')
        .map((e) => String(e.eventId)),
    );
    return events
      .map((e) => e.activityTaskCompletedEventAttributes)
      .filter((done) => done && scheduled.has(String(done.scheduledEventId)))
      .map((done) => {
        const data = done?.result?.payloads?.[0]?.data;
        return data ? (JSON.parse(Buffer.from(data).toString()) as unknown) : undefined;
      });
  };

  beforeAll(async () => {
    ({ client, connection } = await testClient());
  });
  afterEach(async () => {
    // Sleeping turns end only when stopped. Every session is stopped before any result is awaited: with one
    // activity slot, a stopped session's final write can wait behind another session's turn, which ends only when
    // that session is stopped too (under load, awaiting one by one waited forever).
    const stopping = handles.splice(0);
    for (const handle of stopping)
      await handle.signal(stopSignal, { reason: 'test over', by: 'test' }).catch(() => undefined);
    await Promise.all(stopping.map((handle) => handle.result().catch(() => undefined)));
    await worker?.shutdown();
    worker = null;
  });
  afterAll(async () => {
    await connection.close();
  });

  it('with every activity slot busy, the next session shows queued until a slot frees, then runs', async () => {
    const config = configWith(1);
    await startWorker(config);
    const first = await start(config, 'hold the only slot');
    await turnRunning(first.input.sessionDir);

    const second = await start(config, 'wait for a slot');
    const queued = await waitFor(
      'the second session to show queued',
      async () => {
        const state = await second.handle.query(statusQuery);
        return state.status === 'queued' ? state : null;
      },
      WAIT_MS,
    );
    // its set-up waits: no directory yet, and no turn
    expect(queued.iteration).toBe(0);
    expect(sessionState(second.input.sessionDir)).toBeNull();
    expect(await loopStatus(second.handle)).toBe('queued');
    expect(await currentDetails(second.handle)).toContain("queued: the session's set-up waits");
    expect(await loopyStatus(second.input.sessionId, second.input.cwd)).toContain(
      "status      queued: the session's set-up waits for a free activity slot on its host",
    );
    // the first session holds the slot and runs
    await waitFor('the first running', async () => (await loopStatus(first.handle)) === 'running', WAIT_MS);

    // The first session's stop frees the slot: the second sets up, and its turn runs. (The first one's salvage
    // and final write may wait behind that turn: its result is awaited once the test stops both.)
    await first.handle.signal(stopSignal, { reason: 'free the slot', by: 'test' });
    await turnRunning(second.input.sessionDir);
    const running = await waitFor(
      'the second session to run its turn',
      async () => {
        const state = await second.handle.query(statusQuery);
        return state.status === 'running' && state.dispatch.active_iteration ? state : null;
      },
      WAIT_MS,
    );
    expect(running.dispatch.active_iteration?.number).toBe(1);
    await waitFor('LoopStatus running', async () => (await loopStatus(second.handle)) === 'running', WAIT_MS);
    expect(await currentDetails(second.handle)).toMatch(/^iteration 1 · /);
    expect(await loopyStatus(second.input.sessionId, second.input.cwd)).toContain(
      'status      running iteration 1',
    );
  });

  it('a pause during a long turn shows in state.json before the turn ends; resume too; a stop reaches the turn through its worker', async () => {
    // a long heartbeat timeout lets the turn's heartbeats grow rare (up to every 10 s): see the stop below
    const config = configWith(4, '10m');
    await startWorker(config);
    const { input, handle } = await start(config, 'pause me mid-turn');
    const run = await turnRunning(input.sessionDir);
    const before = await waitFor('state.json', () => sessionState(input.sessionDir), WAIT_MS);
    expect(before.dispatch.paused).toBe(false);

    await handle.signal(pauseSignal);
    const paused = await waitFor(
      'state.json to show the pause',
      () => {
        const state = sessionState(input.sessionDir);
        return state?.dispatch.paused ? state : null;
      },
      WAIT_MS,
    );
    // the turn still runs: its harness sleeps until it is stopped
    expect(liveGroup(run.pgid).length).toBeGreaterThan(0);
    expect(paused.dispatch.active_iteration?.number).toBe(1);
    expect(paused.history).toEqual([]);
    expect(paused.projection).toBeGreaterThan(before.projection ?? 0);

    await handle.signal(resumeSignal);
    await waitFor(
      'state.json to show the resume',
      () => sessionState(input.sessionDir)?.dispatch.paused === false,
      WAIT_MS,
    );
    expect(liveGroup(run.pgid).length).toBeGreaterThan(0);

    // Right after a heartbeat that came at least 4 s after the one before, the next one is at least 8 s away: the
    // stop is sent then, so that Temporal's cancellation (which the turn hears only with a heartbeat's reply) cannot
    // come first, and what stops the turn is its worker.
    await heartbeatsRare(handle);
    await handle.signal(stopSignal, { reason: 'enough', by: 'user' });
    expect((await handle.result()).stop).toEqual({ kind: 'user', reason: 'enough' });
    // The stop reached the turn through its worker (stopRunningTurn found it running and stopped it), not only
    // through Temporal's cancellation, which a turn hears at its next heartbeat.
    expect(await stopRunningTurnResults(handle)).toEqual([true]);
    // the final projection stands: the stop's own projection, older, never replaces it
    const final = sessionState(input.sessionDir);
    expect(final?.status).toBe('stopped');
    expect(final?.stop).toMatchObject({ kind: 'user', reason: 'enough', requested_by: 'user' });
  });
});
