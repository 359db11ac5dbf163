import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { processRecordSchema, PROCESS_RECORD } from '../../../src/activities/orphans';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonFile } from '../../../src/session/json-file';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';
import { salvageFileSchema, sessionFileSchema } from '../../../src/session/schemas';
import { hostQueueName } from '../../../src/workflows/goal-session/host-queue';
import { runCli } from '../../support/cli';
import { crashSession } from '../../support/crash-session';
import { harnessStarted, liveGroup, sessionEvents, sessionState } from '../../support/recovery';
import { untilFile } from '../../support/scripted-agent';
import { testServer } from '../../support/temporal';
import { workerProcessSuite } from '../../support/worker-process-suite';
import { waitFor } from '../../support/wait';

jest.setTimeout(300_000);

/**
 * Two worker "hosts" on one machine: both reach the session's directory at the same path, as a shared filesystem
 * would. The real claude CLI runs the turns against the mock Anthropic API.
 */
describe('loopy move: a session moves to another host', () => {
  const suite = workerProcessSuite({ allowedTools: ['Bash'] });

  it('the host died mid-turn: the turn is recovered with its cost on the new host, which runs the rest', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input } = crashSession(suite.mock, suite.workers, {
      name: 'move',
      hostId: 'hosta',
      heartbeatTimeoutMs: 5000,
      goal: 'move to another host',
      turns: [
        { costUsd: 0.01 },
        { until: untilFile(release), text: 'finished on the lost host', costUsd: 0.23 },
      ],
      maxIterations: 3,
    });
    const hostA = worker();
    await hostA.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group } = await harnessStarted(input.sessionDir, 2, 'worker');
    suite.groups.push(group);
    hostA.kill('SIGKILL');
    await hostA.exited;
    // The harness ends while no worker of host A runs (the host is gone for good).
    writeFileSync(release, '');
    await waitFor('the harness to finish on its own', () => liveGroup(group).length === 0, 60_000);

    const cli = (host: string) =>
      runCli(['move', input.sessionId, '--to-host', host], {
        env: { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: '' },
        cwd: input.cwd,
        name: 'loopy',
      });
    // No worker of host B yet: refused at once, and nothing changes.
    const early = await cli('hostb');
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^loopy: no worker polls host hostb's queue .*worker\.hostId: hostb/);
    const bad = await cli('--nope');
    expect(bad.code).toBe(2);

    const hostB = worker({ hostId: 'hostb' });
    await hostB.ready;
    const moved = await cli('hostb');
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/runs on host hostb/);

    const result = await handle.result();
    // THE_LOOP_RECORD_HISTORIES=1 refreshes test/histories/host-move.json (the replay test's input).
    if (process.env.THE_LOOP_RECORD_HISTORIES === '1')
      await recordHistory(suite.client, input.sessionId, defaultHistoryFile('host-move'));
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(3);
    expect(played.turns).toHaveLength(3); // the finished turn was read, not run again

    const state = sessionState(input.sessionDir);
    expect(state?.history[1]).toMatchObject({ iteration: 2, success: true, recovered: true });
    expect(state?.history[1]?.usage?.cost_usd).toBeCloseTo(0.23, 10);
    expect(state?.usage.own.cost_usd).toBeCloseTo(0.25, 10);
    expect(
      readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').salvage, salvageFileSchema),
    ).toMatchObject({ verdict: 'recovered' });
    // The next turn ran on host B, and the session's files name B's queue.
    const thirdRoutine = state?.history[2]?.routine_id ?? '';
    const third = iterationPaths(input.sessionDir, 3, thirdRoutine).harnessOutputRoot;
    const [run] = readdirSync(third);
    expect(readJsonFile(join(third, run ?? '', PROCESS_RECORD), processRecordSchema).host).toBe('hostb');
    expect(readJsonFile(sessionPaths(input.sessionDir).session, sessionFileSchema).host_queue).toBe(
      hostQueueName(input.taskQueue, 'hostb'),
    );
    const movedEvents = sessionEvents(input.sessionDir).filter((e) => e.type === 'session_moved');
    expect(movedEvents.map((e) => e.data)).toEqual([{ from_host_id: 'hosta', host_id: 'hostb', by: 'user' }]);
  });
});
