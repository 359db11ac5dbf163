import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonFile } from '../../../src/session/json-file';
import { harnessRunDir, iterationPaths } from '../../../src/session/paths';
import { harnessExitFileSchema, salvageFileSchema } from '../../../src/session/schemas';
import type { SessionStateFile } from '../../../src/session/schemas/state';
import { statusQuery } from '../../../src/workflows/goal-session/messages';
import type { goalSession } from '../../../src/workflows/goal-session/workflow';
import { runCli } from '../../support/cli';
import { crashSession } from '../../support/crash-session';
import {
  endedIterations,
  harnessStarted,
  liveGroup,
  sessionEvents,
  sessionState,
} from '../../support/recovery';
import { untilFile, usageFor } from '../../support/scripted-agent';
import { testServer } from '../../support/temporal';
import { waitFor, queryAnswer } from '../../support/wait';
import { fillUp, smallTmpfs } from '../../support/small-tmpfs';
import { workerProcessSuite } from '../../support/worker-process-suite';

jest.setTimeout(300_000);

const HOST = 'faulthost';
const HEARTBEAT_TIMEOUT_MS = 5000;
/** THE_LOOP_RECORD_HISTORIES=1 refreshes test/histories/ from these sessions (the replay test's inputs). */
const RECORD = process.env.THE_LOOP_RECORD_HISTORIES === '1';

/** Mounting a file system, or a read-only bind mount, needs root: without it the test fails and says why. */
function requireRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new Error('the file-fault tests mount a 2 MB tmpfs and a read-only bind mount: run them as root');
  }
}

function mount(...args: string[]): void {
  execFileSync('mount', args, { stdio: 'pipe' });
}

const currentDetails = async (handle: WorkflowHandle) =>
  (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';

/**
 * The REAL claude CLI against the mock Anthropic API, in worker processes that the test kills with -9. Iteration 2's
 * harness finishes while no worker runs (its supervisor writes exit.json beside its output); then the session's
 * files fail (a full disk, a read-only directory) before the next worker records the turn.
 */
describe('a file fault in the session files pauses the session, blocked, until loopy resume', () => {
  const suite = workerProcessSuite({ before: requireRoot });
  const cleanups: (() => void)[] = [];

  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  /** A session of 3 turns whose second lasts until `release` exists and costs $0.23; the others cost $0.01. */
  function session(name: string, cwd: string, release: string) {
    const { played, worker, input } = crashSession(suite.mock, suite.workers, {
      name,
      hostId: HOST,
      heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      goal: 'finish a turn while the disk fails',
      turns: [
        { costUsd: 0.01 },
        { until: untilFile(release), text: 'finished during the fault', costUsd: 0.23 },
      ],
      maxIterations: 3,
      cwd,
    });
    const configFile = join(mkdtempSync(join(tmpdir(), `loopy-${name}-config-`)), 'the-loop.yaml');
    writeFileSync(configFile, `temporal:\n  taskQueue: ${input.taskQueue}\nworker:\n  hostId: ${HOST}\n`);
    const cliEnv = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile };
    return { played, worker, input, cliEnv };
  }

  /**
   * Iteration 2's harness finishes while no worker runs, then `fault` is applied and a worker started: the session
   * pauses blocked with the reason and path (the status query, loopy status, the Web UI's details).
   */
  async function untilBlocked(
    name: string,
    cwd: string,
    fault: (sessionDir: string) => void,
    expected: { reason: RegExp; code: string },
  ) {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input, cliEnv } = session(name, cwd, release);
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group } = await harnessStarted(input.sessionDir, 2, 'worker');
    first.kill('SIGKILL');
    await first.exited;

    // No worker runs: the harness ends by itself, its supervisor records that beside its output.
    writeFileSync(release, '');
    await waitFor('the harness to finish on its own', () => liveGroup(group).length === 0, 60_000);
    const paths = iterationPaths(input.sessionDir, 2, 'worker');
    const runId = readFileSync(paths.harnessRunId, 'utf8').trim();
    const runDir = harnessRunDir(input.sessionDir, 2, 'worker', runId);
    expect(readJsonFile(join(runDir, 'exit.json'), harnessExitFileSchema)).toMatchObject({ code: 0 });

    fault(input.sessionDir);
    worker();
    // The retry cannot record the turn: the session pauses, blocked, and says why — no silent retries.
    // (the worker just started: on a loaded machine a query may time out before it polls, and is asked again)
    const blocked = await waitFor(
      'the session to be blocked',
      async () => (await queryAnswer(() => handle.query(statusQuery)))?.dispatch.blocked,
      120_000,
    );
    expect(blocked).toMatchObject({ iteration: 2, code: expected.code });
    expect(blocked.reason).toMatch(expected.reason);
    expect(blocked.path).toContain(input.sessionDir);
    const live: SessionStateFile = await handle.query(statusQuery);
    expect(live.status).toBe('paused');
    expect(live.dispatch.paused).toBe(true);
    expect(live.history.map((h) => h.iteration)).toEqual([1]); // the turn is not booked as failed
    expect(await currentDetails(handle)).toBe(
      `blocked: ${blocked.reason} (${blocked.path}); iteration 2 waits — fix it, then run loopy resume`,
    );
    const status = await runCli(['status', input.sessionId], { env: cliEnv, cwd, name: 'loopy' });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(
      `status      paused, blocked: ${blocked.reason}; iteration 2 waits — fix it, then run \`loopy resume\``,
    );
    expect(status.stdout).toContain(`blocked at  ${blocked.path}`);
    // a wait on a person, since when, as every other view says it
    expect(status.stdout).toContain(`waiting     blocked since ${blocked.at.replace(/\.\d+Z$/, 'Z')} (`);
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2]); // nothing dispatched while blocked
    return { handle, input, cliEnv, played, paths, runId, blocked };
  }

  /**
   * The whole story, with `fault` applied while no worker runs and `fix` undoing it: the session pauses blocked,
   * resumes with loopy resume, and iteration 2 is recovered with its cost — its harness is not run again and its
   * turn is not abandoned.
   */
  async function blockedThenResumed(
    name: string,
    cwd: string,
    fault: (sessionDir: string) => void,
    fix: () => void,
    expected: { reason: RegExp; code: string },
  ): Promise<{ sessionId: string }> {
    const { handle, input, cliEnv, played, paths, runId, blocked } = await untilBlocked(
      name,
      cwd,
      fault,
      expected,
    );
    fix();
    const resumed = await runCli(['resume', input.sessionId], { env: cliEnv, cwd, name: 'loopy' });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(3);
    // The finished turn was read, not run again, and not abandoned: recovered, with what it cost.
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2, 3]);
    // What the real CLI printed: the tokens it was sent and the cost it computed from them.
    const usage = {
      cost_usd: expect.closeTo(0.23, 10) as number,
      ...usageFor(0.23),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    expect(readJsonFile(paths.salvage, salvageFileSchema)).toMatchObject({ verdict: 'recovered', usage });
    const state = sessionState(input.sessionDir);
    expect(state?.history.map((h) => h.iteration)).toEqual([1, 2, 3]);
    expect(state?.history[1]).toMatchObject({
      iteration: 2,
      success: true,
      recovered: true,
      harness_run_id: runId,
      usage,
    });
    expect(state?.usage.own.cost_usd).toBeCloseTo(0.25, 10);
    expect(state?.dispatch.blocked ?? null).toBeNull();
    expect(state?.dispatch.paused).toBe(false);
    // The events, written once the disk allowed: the block, the resume, the recovered turn.
    const events = sessionEvents(input.sessionDir);
    const blockedEvents = events.filter((e) => e.type === 'session_blocked');
    expect(blockedEvents.length).toBeGreaterThanOrEqual(1);
    expect(blockedEvents[0]).toMatchObject({
      iteration: 2,
      data: { reason: blocked.reason, path: blocked.path, code: expected.code },
    });
    expect(events.filter((e) => e.type === 'session_resumed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'iteration_abandoned')).toEqual([]);
    expect(events.filter((e) => e.type === 'iteration_recovered').map((e) => e.iteration)).toEqual([2]);
    expect(endedIterations(events)).toEqual([1, 2, 3]);
    return { sessionId: input.sessionId };
  }

  it('ENOSPC (a full 2 MB tmpfs): blocked with the reason in loopy status, resumed, the finished turn recovered with its cost', async () => {
    const disk = smallTmpfs(cleanups);
    const cwd = join(disk, 'project');
    mkdirSync(cwd);
    let filler = '';
    const { sessionId } = await blockedThenResumed(
      'enospc',
      cwd,
      () => {
        filler = fillUp(disk);
      },
      () => rmSync(filler),
      { reason: /^the session's files cannot be written: ENOSPC: no space left on device/, code: 'ENOSPC' },
    );
    if (RECORD) await recordHistory(suite.client, sessionId, defaultHistoryFile('file-fault-blocked'));
  });

  it('a read-only session directory (EROFS): blocked with the reason in loopy status, resumed, the finished turn recovered', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-erofs-'));
    let readOnly = '';
    await blockedThenResumed(
      'erofs',
      cwd,
      (sessionDir) => {
        readOnly = sessionDir;
        mount('--bind', sessionDir, sessionDir);
        cleanups.push(() => {
          if (readOnly) execFileSync('umount', ['-l', readOnly]);
        });
        mount('-o', 'remount,bind,ro', sessionDir);
      },
      () => {
        execFileSync('umount', [readOnly]);
        readOnly = '';
      },
      { reason: /^the session's files cannot be written: EROFS: read-only file system/, code: 'EROFS' },
    );
  });

  it('loopy stop while blocked, the disk still full: the session stops as the user asked, the turn failed with the reason', async () => {
    const disk = smallTmpfs(cleanups);
    const cwd = join(disk, 'project');
    mkdirSync(cwd);
    const { handle, input, cliEnv, played } = await untilBlocked('stop-blocked', cwd, fillUp, {
      reason: /^the session's files cannot be written: ENOSPC/,
      code: 'ENOSPC',
    });
    const stopped = await runCli(['stop', input.sessionId], { env: cliEnv, cwd, name: 'loopy' });
    expect(stopped.code).toBe(0);
    const result = await handle.result();
    expect(result.stop.kind).toBe('user');
    expect(result.iterations).toBe(2);
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2]);
    const state = await handle.query(statusQuery);
    expect(state.status).toBe('stopped');
    expect(state.history.map((h) => h.iteration)).toEqual([1, 2]);
    expect(state.history[1]).toMatchObject({ success: false, recovered: false });
    expect(state.history[1]?.error).toMatch(/^stopped: the iteration could not be salvaged: .*ENOSPC/);
  });

  it('a session directory that cannot be set up at all stops the session with the reason', async () => {
    const disk = smallTmpfs(cleanups);
    const cwd = join(disk, 'project');
    mkdirSync(cwd);
    const { worker, input, cliEnv } = session('setup-enospc', cwd, join(disk, 'never'));
    fillUp(disk);
    await worker().ready;
    const handle: WorkflowHandle<typeof goalSession> = await startGoalSession(suite.client, input);
    const result = await handle.result();
    expect(result.stop.kind).toBe('error');
    expect(result.stop.reason).toMatch(
      /^the session's files cannot be written: ENOSPC: no space left on device/,
    );
    expect(result.iterations).toBe(0);
    expect(existsSync(iterationPaths(input.sessionDir, 1, 'planner').dir)).toBe(false);
    const status = await runCli(['status', input.sessionId], { env: cliEnv, cwd, name: 'loopy' });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/status +stopped \(error\): the session's files cannot be written: ENOSPC/);
  });
});
