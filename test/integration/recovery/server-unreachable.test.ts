import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonFile } from '../../../src/session/json-file';
import { iterationPaths } from '../../../src/session/paths';
import { salvageFileSchema } from '../../../src/session/schemas';
import { crashSession } from '../../support/crash-session';
import {
  endedIterations,
  harnessStarted,
  liveGroup,
  sessionEvents,
  sessionState,
} from '../../support/recovery';
import { untilFile } from '../../support/scripted-agent';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';
import { testServer } from '../../support/temporal';
import { workerProcessSuite } from '../../support/worker-process-suite';
import { waitFor } from '../../support/wait';

const HEARTBEAT_TIMEOUT_MS = 5000;
// Generous: each wait is for a condition that a loaded machine reaches slowly.
const SERVER_SCHEDULES_THE_RETRY_MS = 120_000;
const WORKER_RECONNECTS_AND_TAKES_THE_RETRY_MS = 180_000;
// Above the sum of its waits (a loaded machine may take each of them nearly whole): not the default 120 s.
jest.setTimeout(10 * 60_000);

/**
 * The worker lives, but Temporal cannot hear it for longer than the heartbeat timeout while its turn runs: what a
 * worker sees while a cluster's history service or database restarts on a slow machine (the cluster e2e suite lost
 * turns this way, as `iteration_abandoned`). The server times the attempt out and schedules a retry; the worker's
 * attempt hears "not found" once it reconnects. The harness is a healthy run, not an orphan: the retry must wait for
 * it and recover the turn with its cost, not kill it. A TCP proxy between the worker and the test run's server is
 * the cut; the server itself stays up for the test's own client.
 */
describe('Temporal unreachable from a live worker for longer than the heartbeat timeout, mid-turn', () => {
  const suite = workerProcessSuite({
    freshBuild: ['src/activities/iteration-run.ts', 'src/activities/live-runs.ts'],
  });
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy(testServer().address);
  });
  afterAll(() => proxy.close());

  it('the timed-out attempt hands its running harness to the retry, which recovers the turn with its cost', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input } = crashSession(suite.mock, suite.workers, {
      name: 'unreachable',
      hostId: 'unreachablehost',
      heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      goal: 'outlive a server that cannot hear the worker',
      turns: [{ until: untilFile(release), text: 'finished while the server could not hear', costUsd: 0.13 }],
      maxIterations: 2,
    });
    const w = worker({ address: proxy.address });
    await w.ready;
    const handle = await startGoalSession(suite.client, input);
    const run = await harnessStarted(input.sessionDir, 1, 'planner');

    proxy.cut();
    // The server gave up on attempt 1 (heartbeat timeout) and scheduled attempt 2, which no worker can take yet.
    const turn = async () =>
      (await handle.describe()).raw.pendingActivities?.find((a) => a.activityType?.name === 'runIteration');
    await waitFor(
      'the retry of turn 1',
      async () => ((await turn())?.attempt ?? 0) >= 2,
      SERVER_SCHEDULES_THE_RETRY_MS,
    );
    proxy.restore();
    // The same worker takes the retry while the harness of attempt 1 still runs.
    await waitFor(
      'the worker to take the retry',
      async () =>
        (await turn())?.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      WORKER_RECONNECTS_AND_TAKES_THE_RETRY_MS,
    );
    // The retry says it waits for the live harness instead of reaping it. Released only then: a harness released
    // earlier can end before the retry looks, and the turn is recovered without the wait this test is about.
    await waitFor(
      'the retry to wait for the running harness',
      () => /waiting for it to end, to recover the turn/.test(readFileSync(w.logFile, 'utf8')),
      WORKER_RECONNECTS_AND_TAKES_THE_RETRY_MS,
    );
    expect(liveGroup(run.group).length).toBeGreaterThan(0);
    writeFileSync(release, '');
    const paths = iterationPaths(input.sessionDir, 1, 'planner');

    const outcome = await handle.result();
    expect(outcome.iterations).toBe(2);
    // The turn ran once, was not killed, and is recorded with what it cost.
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2]);
    const events = sessionEvents(input.sessionDir);
    expect(endedIterations(events)).toEqual([1, 2]);
    expect(events.filter((e) => e.type === 'iteration_abandoned')).toEqual([]);
    expect(events.find((e) => e.type === 'iteration_recovered')?.iteration).toBe(1);
    const entry = sessionState(input.sessionDir)?.history[0];
    expect(entry).toMatchObject({ iteration: 1, success: true, recovered: true });
    expect(entry?.usage?.cost_usd).toBeCloseTo(0.13, 10);
    expect(readJsonFile(paths.salvage, salvageFileSchema)).toMatchObject({ verdict: 'recovered' });
  });
});
