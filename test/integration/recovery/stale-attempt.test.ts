import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { ATTEMPTS_DIR } from '../../../src/activities/attempt-lease';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonFile } from '../../../src/session/json-file';
import { iterationPaths } from '../../../src/session/paths';
import { resultFileSchema, salvageFileSchema } from '../../../src/session/schemas';
import { claudeEnv, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { harnessStarted, liveGroup, sessionEvents, sessionState } from '../../support/recovery';
import { untilFile, type AgentPlay } from '../../support/scripted-agent';
import { testClient } from '../../support/temporal';
import { assertFreshBuild, type WorkerProcess } from '../../support/worker-processes';
import { crashSession } from '../../support/crash-session';
import { waitFor } from '../../support/wait';

const HEARTBEAT_TIMEOUT_MS = 5000;
const HOST = 'stalehost';

// generous: each test waits on conditions that a loaded machine reaches slowly, never on a time bound
jest.setTimeout(300_000);

/** The process's state letter from /proc (T: stopped). */
function processState(pid: number): string | null {
  try {
    return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** What identifies a file's version: a write (temp file, rename) gives it a new inode. */
function fileVersion(file: string): { ino: number; text: string } {
  return { ino: statSync(file).ino, text: readFileSync(file, 'utf8') };
}

/**
 * A worker stopped (SIGSTOP) for longer than the heartbeat timeout wakes up after a second worker has taken its
 * turn over. The REAL claude CLI plays the turns against the mock Anthropic API (see worker-crash.test.ts).
 */
describe('a stale attempt is fenced (SIGSTOP past the heartbeat timeout, then SIGCONT)', () => {
  let client: Client;
  let connection: Connection;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    assertFreshBuild([
      'test/support/worker-process.ts',
      'src/activities/run-iteration.ts',
      'src/activities/attempt-lease.ts',
    ]);
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock, { allowedTools: ['Bash'] }).env);
    ({ client, connection } = await testClient());
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGCONT');
      w.kill('SIGKILL');
      await w.exited;
    }
  });
  afterAll(async () => {
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  const setup = (turns: AgentPlay[], maxIterations: number) =>
    crashSession(mock, workers, {
      name: 'stale',
      hostId: HOST,
      heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      goal: 'survive a stale worker',
      turns,
      maxIterations,
    });

  /**
   * Resumes the stopped worker and waits until its attempt has given the turn up, or (were it not fenced) has
   * written over what the second worker recorded.
   */
  async function resumeStale(
    stale: WorkerProcess,
    sessionDir: string,
    written: { ino: number },
  ): Promise<string[]> {
    const paths = iterationPaths(sessionDir, 1, 'planner');
    stale.kill('SIGCONT');
    await waitFor(
      'the resumed attempt to end',
      () =>
        /stale attempt refused: attempt-1\./.test(readFileSync(stale.logFile, 'utf8')) ||
        existsSync(paths.pendingFinishedRequest) ||
        statSync(paths.result).ino !== written.ino,
      120_000,
    );
    // The stopped worker's polls may also have been handed attempts 2, 3, … that timed out unstarted. Each creates
    // its lease before it looks, finds the newer one and removes its own: the leases are read when one is live.
    return waitFor(
      "the stale worker's later attempts to give their leases up",
      () => {
        const leases = readdirSync(join(paths.dir, ATTEMPTS_DIR));
        return leases.filter((name) => !name.endsWith('.superseded')).length === 1 && leases;
      },
      60_000,
    );
  }

  /**
   * The files and the history agree on iteration 1, which the second worker recovered: result.json is the one it
   * wrote, and the stale attempt left no handoff record, no goal check and nothing staged.
   */
  function expectAgreement(
    sessionDir: string,
    written: { ino: number; text: string },
    costUsd: number,
    leases: string[],
  ): void {
    const paths = iterationPaths(sessionDir, 1, 'planner');
    expect(fileVersion(paths.result)).toEqual(written);
    const result = readJsonFile(paths.result, resultFileSchema);
    const entry = sessionState(sessionDir)?.history[0];
    expect(entry).toMatchObject({
      iteration: 1,
      recovered: true,
      success: result.success,
      error: result.error,
      harness_run_id: result.harness_run_id,
    });
    expect(entry?.usage?.cost_usd).toBeCloseTo(costUsd, 10);
    expect(readJsonFile(paths.salvage, salvageFileSchema)).toMatchObject({ verdict: 'recovered' });
    expect(existsSync(paths.pendingFinishedRequest)).toBe(false); // acknowledged, and not written again
    expect(existsSync(paths.goalCheck)).toBe(false);
    // One lease holds the turn; the stale worker's later attempts gave up leaving nothing (see resumeStale).
    const rank = (name: string) => Number(/^attempt-(\d+)\./.exec(name)?.[1]);
    const superseded = leases.filter((name) => name.endsWith('.superseded'));
    const live = leases.filter((name) => !name.endsWith('.superseded'));
    expect(live).toHaveLength(1);
    expect(superseded).toContainEqual(expect.stringMatching(/^attempt-1\./));
    for (const name of superseded) {
      expect(rank(name)).toBeLessThan(rank(live[0] ?? ''));
      expect(readdirSync(join(paths.dir, ATTEMPTS_DIR, name))).toEqual([]); // nothing staged either
    }
    const events = sessionEvents(sessionDir);
    expect(events.filter((e) => e.type === 'iteration_recovered').map((e) => e.iteration)).toEqual([1]);
    expect(events.filter((e) => e.type === 'iteration_abandoned')).toEqual([]);
  }

  it('stopped just before writing result.json: the retry records the turn, and the stale write is refused', async () => {
    const { played, worker, input } = setup([{ text: 'the first turn', costUsd: 0.05 }], 2);
    // This worker stops itself at the worst moment: its harness has ended, its result is not yet written.
    const stale = worker({ faultPoint: 'stop-before-result-json' });
    await stale.ready;
    const handle = await startGoalSession(client, input);
    await waitFor('the first worker to stop itself', () => processState(stale.pid) === 'T', 120_000);
    const paths = iterationPaths(input.sessionDir, 1, 'planner');
    expect(existsSync(paths.result)).toBe(false);

    worker();
    const outcome = await handle.result();
    expect(outcome.iterations).toBe(2);
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2]); // recovered from its files, not run again
    const written = fileVersion(paths.result);
    expect(JSON.parse(written.text)).toMatchObject({ success: true, text: 'the first turn' });

    const leases = await resumeStale(stale, input.sessionDir, written);
    expectAgreement(input.sessionDir, written, 0.05, leases);
    expect(readFileSync(stale.logFile, 'utf8')).toMatch(/stale attempt refused: attempt-1\./);
  });

  it('stopped mid-turn while its harness finishes: the retry recovers the turn, the resumed attempt writes nothing', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input } = setup(
      [{ until: untilFile(release), text: 'finished while its worker was stopped', costUsd: 0.21 }],
      2,
    );
    const stale = worker();
    await stale.ready;
    const handle = await startGoalSession(client, input);
    const { group } = await harnessStarted(input.sessionDir, 1, 'planner');
    stale.kill('SIGSTOP');
    await waitFor('the first worker to stop', () => processState(stale.pid) === 'T', 60_000);
    writeFileSync(release, '');
    await waitFor('the harness to finish on its own', () => liveGroup(group).length === 0, 60_000);

    worker();
    const outcome = await handle.result();
    expect(outcome.iterations).toBe(2);
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2]);
    const paths = iterationPaths(input.sessionDir, 1, 'planner');
    const written = fileVersion(paths.result);
    expect(JSON.parse(written.text)).toMatchObject({
      success: true,
      text: 'finished while its worker was stopped',
    });

    const leases = await resumeStale(stale, input.sessionDir, written);
    expectAgreement(input.sessionDir, written, 0.21, leases);
    expect(readFileSync(stale.logFile, 'utf8')).toMatch(/stale attempt refused: attempt-1\./);
  });
});
