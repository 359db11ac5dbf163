import { existsSync, mkdtempSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { stopSignal } from '../../../src/workflows/goal-session/messages';
import { processRecordSchema } from '../../../src/activities/orphans';
import { probeContainment } from '../../../src/harness/containment';
import { procStatFields } from '../../../src/harness/process-group';
import { readJsonFile } from '../../../src/session/json-file';
import { harnessRunDir, iterationPaths } from '../../../src/session/paths';
import { salvageFileSchema } from '../../../src/session/schemas';
import { runCli } from '../../support/cli';
import {
  ESCAPING_HARNESS,
  liveGroup,
  recoveryConfig,
  recoveryConfigObject,
  sessionState,
} from '../../support/recovery';
import { testClient, testServer, uniqueQueue } from '../../support/temporal';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';
import { waitFor } from '../../support/wait';

const HOST = 'cgrouphost';

jest.setTimeout(300_000);

/** Alive and able to work: a killed process that nobody reaps stays a zombie (PID 1 here does not reap). */
function isLive(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/** The escapee's pid, once the harness has left it behind. */
async function escapee(pidFile: string): Promise<number> {
  return Number(
    await waitFor('the escapee', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), 60_000),
  );
}

/**
 * A harness (the command harness: a shell line, as a user configures it) double-forks a process into a session of its
 * own with an emptied environment: out of the run's process group, and without the marker variable the fallback scans
 * for. Only the run's cgroup still holds it.
 */
describe('containment: a process that left the turn’s process group and environment still ends with the turn', () => {
  let client: Client;
  let connection: Connection;
  const workers: WorkerProcess[] = [];
  const escapees: number[] = [];
  /** Each run's process group and cgroup, ended after a failed test whatever it left (as the code under test should). */
  const runs: { pgid: number; cgroup: string | null }[] = [];

  beforeAll(async () => {
    assertFreshBuild([
      'test/support/worker-process.ts',
      'src/harness/spawn-detached.ts',
      'src/harness/supervisor.ts',
      'src/harness/process-group.ts',
      'src/activities/orphans.ts',
      'src/activities/run-cgroups.ts',
    ]);
    // No silent skip: these tests are about cgroup v2, and a host without it cannot show what they check.
    const host = await probeContainment(null);
    if (host.kind !== 'cgroup') {
      throw new Error(
        `this host gives harness runs no cgroup v2 (${host.reason}). Run the tests where cgroup2 is mounted ` +
          '(e.g. `mount -t cgroup2 none /sys/fs/cgroup/unified` on a cgroup v1 host), the kernel is 5.14 or later ' +
          '(cgroup.kill), and this user may create cgroups under its own (root, or a delegated subtree: systemd ' +
          '`Delegate=yes`). `the-loop status` prints the same reason.',
      );
    }
    ({ client, connection } = await testClient());
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
    for (const pid of escapees.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    for (const run of runs.splice(0)) {
      try {
        process.kill(-run.pgid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
      if (run.cgroup && existsSync(run.cgroup)) {
        writeFileSync(join(run.cgroup, 'cgroup.kill'), '1');
        await waitFor(
          'the cgroup to empty',
          () => !/populated 1/.test(readFileSync(join(run.cgroup ?? '', 'cgroup.events'), 'utf8')),
          10_000,
        );
        rmdirSync(run.cgroup);
      }
    }
  });
  afterAll(async () => {
    await connection.close();
  });

  function session(name: string, mode: 'exit' | 'stay') {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'loopy-escapee-')), 'escapee.pid');
    const config = { taskQueue: uniqueQueue(name), hostId: HOST, heartbeatTimeout: '5000ms' };
    const worker = () => {
      const w = spawnWorkerProcess({
        address: testServer().address,
        taskQueue: config.taskQueue,
        hostId: HOST,
        bundlePath: testServer().bundlePath,
        config: recoveryConfigObject(config),
      });
      workers.push(w);
      return w;
    };
    const input = buildSessionInput(recoveryConfig(config), {
      goal: 'leave a process behind',
      cwd: mkdtempSync(join(tmpdir(), `loopy-${name}-`)),
      harness: 'command',
      harnessCommand: `${ESCAPING_HARNESS} ${pidFile} ${mode}`,
      maxIterations: 1,
    });
    return { pidFile, worker, input };
  }

  /** The run of iteration 1 (planner), from its process.json. */
  function runRecord(sessionDir: string) {
    const runId = readFileSync(iterationPaths(sessionDir, 1, 'planner').harnessRunId, 'utf8').trim();
    const dir = harnessRunDir(sessionDir, 1, 'planner', runId);
    const record = readJsonFile(join(dir, 'process.json'), processRecordSchema);
    runs.push({ pgid: record.pgid, cgroup: record.cgroup ?? null });
    return record;
  }

  /** Waits for the run's process.json. */
  function spawnedRun(sessionDir: string) {
    return waitFor(
      'process.json',
      () => {
        try {
          return runRecord(sessionDir);
        } catch {
          return null; // not written yet
        }
      },
      60_000,
    );
  }

  it('a turn that ends normally leaves no process behind, setsid and env -i escapees included', async () => {
    const { pidFile, worker, input } = session('contain-end', 'exit');
    await worker().ready;
    const handle = await startGoalSession(client, input);
    const pid = await escapee(pidFile);
    escapees.push(pid);
    const result = await handle.result();
    expect(result).toMatchObject({ iterations: 1, stop: { kind: 'max_iterations' } });
    expect(sessionState(input.sessionDir)?.history[0]).toMatchObject({ success: true });

    expect(isLive(pid)).toBe(false);
    // The run had a cgroup of its own, and it is gone with everything in it.
    const record = runRecord(input.sessionDir);
    expect(liveGroup(record.pgid)).toEqual([]);
    expect(record.cgroup).toEqual(expect.stringMatching(/\/the-loop\/run-1-[0-9a-f]+-[0-9a-f]{12}$/));
    expect(existsSync(record.cgroup ?? '')).toBe(false);
  });

  it('a stop mid-turn leaves no process behind, escapees included', async () => {
    const { pidFile, worker, input } = session('contain-stop', 'stay');
    await worker().ready;
    const handle = await startGoalSession(client, input);
    const pid = await escapee(pidFile);
    escapees.push(pid);
    const record = await spawnedRun(input.sessionDir);
    expect(isLive(pid)).toBe(true);
    await handle.signal(stopSignal, { reason: 'stop mid-turn', by: 'test' });
    const result = await handle.result();
    expect(result.stop.kind).toBe('user');

    expect(isLive(pid)).toBe(false);
    expect(liveGroup(record.pgid)).toEqual([]);
    expect(existsSync(record.cgroup ?? '')).toBe(false);
  });

  it('kill -9 of the worker mid-turn: the next worker’s recovery leaves no process behind, escapees included', async () => {
    const { pidFile, worker, input } = session('contain-crash', 'stay');
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(client, input);
    const pid = await escapee(pidFile);
    escapees.push(pid);
    const record = await spawnedRun(input.sessionDir);

    // It did escape: another process group and session, none of the run's environment, but still in its cgroup.
    const [, , pgid, sid] = procStatFields(pid) ?? [];
    expect(Number(pgid)).not.toBe(record.pgid);
    expect(Number(sid)).toBe(pid);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(environ.filter((v) => !v.startsWith('PWD='))).toEqual([]); // the shell sets PWD again
    const cgroup = record.cgroup ?? '';
    expect(readFileSync(join(cgroup, 'cgroup.procs'), 'utf8').split('\n')).toContain(String(pid));

    first.kill('SIGKILL');
    await first.exited;
    expect(isLive(pid)).toBe(true); // the worker's death ends nothing: an orphan
    expect(liveGroup(record.pgid).length).toBeGreaterThan(0);
    worker();
    const result = await handle.result();
    expect(result).toMatchObject({ iterations: 1 });

    expect(isLive(pid)).toBe(false);
    expect(liveGroup(record.pgid)).toEqual([]);
    expect(existsSync(cgroup)).toBe(false);
    expect(sessionState(input.sessionDir)?.history[0]?.error).toMatch(/^abandoned/);
    const salvage = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').salvage, salvageFileSchema);
    expect(salvage.reports[0]).toMatchObject({
      harness_run_id: record.runId,
      pgid: record.pgid,
      settled: true,
      unsettled_workers: 0,
      cgroup: { path: cgroup, found: true, killed: 1, settled: true, removed: true },
    });
    expect(salvage.reports[0]?.detail).toContain(`cgroup.kill ended 1 process(es) of ${cgroup}`);
  });

  it('`the-loop status` prints the containment this host gives', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-status-'));
    const status = await runCli(['status'], {
      env: { THE_LOOP_STATE_DIR: stateDir, THE_LOOP_CONFIG: '', TEMPORAL_ADDRESS: testServer().address },
    });
    expect(status.code).toBe(0);
    const base = /^containment: cgroup v2 at (\S+) /m.exec(status.stdout)?.[1];
    expect(base).toEqual(expect.stringMatching(/\/the-loop$/));
    expect(existsSync(join(base ?? '', 'cgroup.kill'))).toBe(true);
    const json = await runCli(['status', '--format', 'json'], {
      env: { THE_LOOP_STATE_DIR: stateDir, THE_LOOP_CONFIG: '', TEMPORAL_ADDRESS: testServer().address },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ containment: { kind: 'cgroup', base } });
  });
});
