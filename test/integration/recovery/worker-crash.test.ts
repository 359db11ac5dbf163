import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { readExit } from '../../../src/activities/recover-run';
import { startGoalSession } from '../../../src/cli/start-session';
import type { goalSession } from '../../../src/workflows/goal-session/workflow';
import { stopSignal } from '../../../src/workflows/goal-session/messages';
import { readJsonFile } from '../../../src/session/json-file';
import { harnessRunDir, iterationPaths } from '../../../src/session/paths';
import { harnessExitFileSchema, resultFileSchema, salvageFileSchema } from '../../../src/session/schemas';
import {
  endedIterations,
  harnessStarted,
  liveGroup,
  sessionEvents,
  sessionState,
  SIGTERM_IGNORING_HARNESS,
  type StartedRun,
} from '../../support/recovery';
import { forever, untilFile, usageFor, type AgentPlay } from '../../support/scripted-agent';
import { startWorkflowsOnlyWorker } from '../../support/temporal';
import { workerProcessSuite } from '../../support/worker-process-suite';
import { crashSession } from '../../support/crash-session';
import { staysTrue, waitFor } from '../../support/wait';

const HEARTBEAT_TIMEOUT_MS = 5000;
/** THE_LOOP_RECORD_HISTORIES=1 refreshes test/histories/ from these sessions (the replay test's inputs). */
const RECORD = process.env.THE_LOOP_RECORD_HISTORIES === '1';
const HOST = 'crashhost';

// generous: each test waits on conditions that a loaded machine reaches slowly, never on a time bound
jest.setTimeout(300_000);

/**
 * The worker processes run the REAL claude CLI against the mock Anthropic API in this process (they inherit this
 * process's environment: the mock's URL, a dummy key, and a scratch HOME that allows Bash); turns are scripted by
 * iteration number.
 */
describe('crash recovery with a worker in its own process (kill -9)', () => {
  const suite = workerProcessSuite({ allowedTools: ['Bash'] });

  /** `turns` by iteration (1-based); the others cost $0.01. */
  const setup = (turns: AgentPlay[], maxIterations: number, claudeCommand?: string) =>
    crashSession(suite.mock, suite.workers, {
      name: 'crash',
      hostId: HOST,
      heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      goal: 'survive a crash',
      turns,
      maxIterations,
      ...(claudeCommand ? { claudeCommand } : {}),
    });

  async function maybeRecord(workflowId: string, name: string): Promise<void> {
    if (RECORD) await recordHistory(suite.client, workflowId, defaultHistoryFile(name));
  }

  /**
   * Waits for the harness of an iteration to run. `group` is its process group, led by the harness's supervisor (the
   * process the worker spawned, which process.json and salvage.json name); `harness` is the CLI itself, a member of it.
   */
  async function runStarted(
    sessionDir: string,
    iteration: number,
    routineId: string,
    executable?: string,
  ): Promise<StartedRun> {
    const run = await harnessStarted(sessionDir, iteration, routineId, executable ? { executable } : {});
    suite.groups.push(run.group);
    expect(run.group).not.toBe(run.harness);
    return run;
  }

  /**
   * A stop while no host worker runs: a workflows-only worker (no host queue) lets the stop cancel the dead attempt,
   * and the session then waits for a host worker to salvage the turn; the attempt itself never runs again.
   */
  async function stopWhileNoHostWorker(
    handle: WorkflowHandle<typeof goalSession>,
    taskQueue: string,
    reason: string,
  ): Promise<void> {
    const workflowsOnly = await startWorkflowsOnlyWorker(taskQueue);
    try {
      await handle.signal(stopSignal, { reason, by: 'test' });
      await waitFor(
        'the stopped turn waiting for its salvage',
        async () =>
          (await handle.describe()).raw.pendingActivities?.some(
            (a) => a.activityType?.name === 'salvageStoppedIteration',
          ) === true,
        240_000,
      );
    } finally {
      await workflowsOnly.shutdown();
    }
  }

  it('kill -9 mid-turn: the orphan is reaped by a new worker, salvage.json reports it, the turn is abandoned, the session finishes', async () => {
    // the orphan would live 10 minutes: gone well before that can only be the salvage's doing. Its Bash tool runs
    // the ten minutes in a shell that the real claude puts in a process group of its own.
    const toolPidFile = join(mkdtempSync(join(tmpdir(), 'loopy-tool-')), 'tool.pid');
    const { played, worker, input } = setup(
      [{}, { bash: `echo $$ > ${toolPidFile}.tmp && mv ${toolPidFile}.tmp ${toolPidFile} && sleep 600` }],
      4,
    );
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group: orphan, harness } = await runStarted(input.sessionDir, 2, 'worker');
    const tool = Number(
      await waitFor(
        'the tool process',
        () => existsSync(toolPidFile) && readFileSync(toolPidFile, 'utf8'),
        60_000,
      ),
    );
    expect(liveGroup(orphan)).toEqual(expect.arrayContaining([orphan, harness]));
    expect(liveGroup(tool).length).toBeGreaterThan(0);

    first.kill('SIGKILL');
    await first.exited;
    expect(liveGroup(orphan).length).toBe(2); // the harness outlives its worker: an orphan
    const second = worker();
    await second.ready;

    await waitFor('the orphan to be gone', () => liveGroup(orphan).length === 0, 90_000);
    await waitFor('the tool process to be gone', () => liveGroup(tool).length === 0, 90_000);

    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(4);
    await maybeRecord(input.sessionId, 'crash-salvage');

    const paths = iterationPaths(input.sessionDir, 2, 'worker');
    expect(existsSync(paths.result)).toBe(false); // never fabricated
    const salvage = readJsonFile(paths.salvage, salvageFileSchema);
    expect(salvage.iteration).toBe(2);
    // Still running when recovery came: stopped by the reaper, so abandoned. The real claude, SIGTERMed while its
    // Bash tool runs, ends the tool itself and prints a result line (its calls cost nothing): that is recorded.
    expect(salvage.verdict).toBe('abandoned');
    expect(salvage.usage?.cost_usd ?? 0).toBe(0);
    expect(salvage.reports.every((r) => r.settled)).toBe(true);
    expect(salvage.reports[0]).toMatchObject({
      pid: orphan,
      pgid: orphan,
      action: 'sigterm',
      settled: true,
      unsettled_workers: 0,
      harness_run_id: readFileSync(paths.harnessRunId, 'utf8'),
    });

    const state = sessionState(input.sessionDir);
    expect(state?.history.map((h) => h.iteration)).toEqual([1, 2, 3, 4]);
    expect(state?.history[1]).toMatchObject({ success: false, error: 'abandoned_after_sigterm' });
    expect(state?.history[1]?.usage?.cost_usd ?? 0).toBe(0);
    expect(state?.dispatch.refused ?? null).toBeNull();
    const events = sessionEvents(input.sessionDir);
    expect(events.filter((e) => e.type === 'iteration_abandoned').map((e) => e.iteration)).toEqual([2]);
    expect(endedIterations(events)).toEqual([1, 2, 3, 4]);
    const started = events.filter((e) => e.type === 'iteration_started').map((e) => e.iteration);
    expect(new Set(started)).toEqual(new Set([1, 2, 3, 4]));
    // The abandoned turn ran once; the harness ran 4 times for 4 iterations.
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2, 3, 4]);
  });

  it('kill -9 mid-turn, the harness finishes while no worker runs: the turn is recovered with its cost and tokens', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input } = setup(
      [{ costUsd: 0.01 }, { until: untilFile(release), text: 'finished while no worker ran', costUsd: 0.37 }],
      3,
    );
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group } = await runStarted(input.sessionDir, 2, 'worker');
    first.kill('SIGKILL');
    await first.exited;

    // No worker runs: the harness ends by itself, and its supervisor records that beside its output.
    const paths = iterationPaths(input.sessionDir, 2, 'worker');
    const runId = readFileSync(paths.harnessRunId, 'utf8').trim();
    const runDir = harnessRunDir(input.sessionDir, 2, 'worker', runId);
    expect(readExit(runDir)).toBeNull(); // still running when the worker died
    writeFileSync(release, '');
    await waitFor('the harness to finish on its own', () => liveGroup(group).length === 0, 60_000);
    expect(readJsonFile(join(runDir, 'exit.json'), harnessExitFileSchema)).toMatchObject({
      code: 0,
      signal: null,
    });
    expect(existsSync(paths.result)).toBe(false); // nobody recorded the turn yet

    worker();
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(3);
    expect(played.turns).toHaveLength(3); // the finished turn was read, not run again

    // What the real CLI printed: the tokens it was sent and the cost it computed from them.
    const expectedUsage = {
      cost_usd: 0.37,
      ...usageFor(0.37),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    expect(readJsonFile(paths.result, resultFileSchema)).toMatchObject({
      success: true,
      text: 'finished while no worker ran',
      error: null,
      harness_run_id: runId,
    });
    expect(readJsonFile(paths.salvage, salvageFileSchema)).toMatchObject({
      verdict: 'recovered',
      usage: expectedUsage,
    });
    const state = sessionState(input.sessionDir);
    expect(state?.history.map((h) => h.iteration)).toEqual([1, 2, 3]);
    expect(state?.history[1]).toMatchObject({
      iteration: 2,
      success: true,
      recovered: true,
      error: null,
      harness_run_id: runId,
      usage: expectedUsage,
    });
    // The budget counts it: 0.01 for each of the other two turns, 0.37 for this one.
    expect(state?.usage.own.cost_usd).toBeCloseTo(0.39, 10);
    expect(state?.usage.own.input_tokens).toBe(
      usageFor(0.01).input_tokens + usageFor(0.37).input_tokens + usageFor(0.01).input_tokens,
    );
    const events = sessionEvents(input.sessionDir);
    expect(events.filter((e) => e.type === 'iteration_abandoned')).toEqual([]);
    const recovered = events.filter((e) => e.type === 'iteration_recovered');
    expect(recovered.map((e) => e.iteration)).toEqual([2]);
    expect(recovered[0]?.data).toMatchObject({ success: true, cost_usd: 0.37 });
    expect(endedIterations(events)).toEqual([1, 2, 3]);
  });

  it('a stop while no worker runs, after the harness printed its cost: the salvage books the turn with its cost', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const { played, worker, input } = setup(
      [{ costUsd: 0.01 }, { until: untilFile(release), text: 'finished before the stop', costUsd: 0.29 }],
      3,
    );
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group } = await runStarted(input.sessionDir, 2, 'worker');
    first.kill('SIGKILL');
    await first.exited;
    writeFileSync(release, '');
    await waitFor('the harness to finish on its own', () => liveGroup(group).length === 0, 60_000);

    // Only the stop's salvage, on the host worker started next, can book the turn.
    await stopWhileNoHostWorker(handle, input.taskQueue, 'stopped after the harness ended');
    worker();
    const result = await handle.result();
    await maybeRecord(input.sessionId, 'stop-after-harness-finished');
    expect(result.stop.kind).toBe('user');
    expect(played.turns).toHaveLength(2);
    const paths = iterationPaths(input.sessionDir, 2, 'worker');
    expect(readJsonFile(paths.result, resultFileSchema)).toMatchObject({
      success: true,
      text: 'finished before the stop',
    });
    expect(readJsonFile(paths.salvage, salvageFileSchema)).toMatchObject({
      verdict: 'recovered',
      usage: { cost_usd: expect.closeTo(0.29, 10) },
    });
    const state = sessionState(input.sessionDir);
    expect(state?.history[1]).toMatchObject({
      iteration: 2,
      success: true,
      recovered: true,
      usage: { cost_usd: expect.closeTo(0.29, 10) },
    });
    // Every cent the harnesses reported: 0.01 for the first turn, 0.29 for the stopped one.
    expect(state?.usage.own.cost_usd).toBeCloseTo(0.3, 10);
    expect(result.usage.cost_usd).toBeCloseTo(0.3, 10);
    const events = sessionEvents(input.sessionDir);
    expect(events.filter((e) => e.type === 'iteration_recovered').map((e) => e.iteration)).toEqual([2]);
  });

  it('kill -9 between result.json and completion: the turn is recovered, not run again', async () => {
    const { played, worker, input } = setup([{ text: 'first turn' }], 2);
    const crashing = worker({ faultPoint: 'after-result-json' });
    await crashing.ready;
    const handle = await startGoalSession(suite.client, input);
    const exit = await crashing.exited;
    expect(exit.signal).toBe('SIGKILL');
    const paths = iterationPaths(input.sessionDir, 1, 'planner');
    expect(existsSync(paths.result)).toBe(true);
    expect(existsSync(paths.pendingFinishedRequest)).toBe(true);
    expect(played.turns).toHaveLength(1);

    worker();
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    await maybeRecord(input.sessionId, 'handoff-recovered');
    expect(played.turns).toHaveLength(2); // iteration 1 was not run again
    const state = sessionState(input.sessionDir);
    expect(state?.history[0]).toMatchObject({ iteration: 1, success: true, recovered: true, error: null });
    expect(existsSync(paths.pendingFinishedRequest)).toBe(false); // acknowledged
    expect(existsSync(paths.salvage)).toBe(false);
    const events = sessionEvents(input.sessionDir);
    expect(events.filter((e) => e.type === 'iteration_recovered').map((e) => e.iteration)).toEqual([1]);
    expect(endedIterations(events)).toEqual([1, 2]);
  });

  it('a stop while a dead worker held a turn that never wrote its projection: the events it carried still land', async () => {
    const { played, worker, input } = setup([{ text: 'first turn' }], 3);
    // Iteration 2's first attempt carries iteration 1's end (its event and acknowledgement); the worker dies
    // before it writes any of it.
    const crashing = worker({ faultPoint: 'before-projection:2' });
    await crashing.ready;
    const handle = await startGoalSession(suite.client, input);
    expect((await crashing.exited).signal).toBe('SIGKILL');
    expect(played.turns).toHaveLength(1);
    expect(endedIterations(sessionEvents(input.sessionDir))).toEqual([]);

    // The attempt never runs again, so nothing it carried is written by a retry.
    await stopWhileNoHostWorker(handle, input.taskQueue, 'stopped while the worker was gone');
    worker();
    const result = await handle.result();
    await maybeRecord(input.sessionId, 'stop-unwritten-projection');
    expect(result.stop.kind).toBe('user');
    expect(played.turns).toHaveLength(1);
    const events = sessionEvents(input.sessionDir);
    expect(endedIterations(events)).toEqual([1, 2]);
    // one event per number, none missing
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(existsSync(iterationPaths(input.sessionDir, 1, 'planner').pendingFinishedRequest)).toBe(false);
  });

  it('a harness that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
    // No real agent CLI ignores SIGTERM: a stand-in does (test/support/bin/sigterm-ignoring-harness), for the
    // session's one turn.
    const { worker, input } = setup([], 1, SIGTERM_IGNORING_HARNESS);
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group: orphan } = await runStarted(input.sessionDir, 1, 'planner', '/usr/bin/sleep');
    first.kill('SIGKILL');
    await first.exited;
    worker();
    const result = await handle.result();
    expect(result).toMatchObject({ iterations: 1, stop: { kind: 'max_iterations' } });
    expect(liveGroup(orphan)).toEqual([]);
    const salvage = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').salvage, salvageFileSchema);
    expect(salvage.reports[0]).toMatchObject({ pid: orphan, action: 'sigkill', settled: true });
    expect(sessionState(input.sessionDir)?.history[0]?.error).toBe('abandoned_after_sigkill');
  });

  it('an orphan that cannot be proven gone keeps dispatch refused, visibly, until it is settled', async () => {
    const { played, worker, input } = setup([{ until: forever }], 2);
    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group: orphan, harness } = await runStarted(input.sessionDir, 1, 'planner');
    first.kill('SIGKILL');
    await first.exited;
    // This worker behaves as if signalling the orphan failed with EPERM; its liveness check is the real one.
    worker({ faultPoint: 'reaper-cannot-signal' });

    const refused = await waitFor(
      'dispatch.refused in state.json',
      () => sessionState(input.sessionDir)?.dispatch.refused,
      90_000,
    );
    expect(refused).toMatchObject({
      iteration: 1,
      routine_id: 'planner',
      unsettled_workers: 2, // the supervisor and its harness
      pids: [orphan],
    });
    const salvage = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').salvage, salvageFileSchema);
    expect(salvage.reports[0]).toMatchObject({ pid: orphan, settled: false, unsettled_workers: 2 });
    // Temporal shows the refusal too: the pending activity's last failure.
    // the failure reaches the server just after state.json
    const failureType = await waitFor(
      'the refusal as the last failure of the pending activity',
      async () => {
        const description = await handle.describe();
        const type = description.raw.pendingActivities?.[0]?.lastFailure?.applicationFailureInfo?.type;
        return type === 'UnsettledWorkers' && type;
      },
      90_000,
    );
    expect(failureType).toBe('UnsettledWorkers');
    // Refused means refused: nothing else is dispatched while the orphan runs.
    await staysTrue(
      'one turn only while the orphan runs',
      () => played.turns.length === 1 && [orphan, harness].every((pid) => liveGroup(orphan).includes(pid)),
      3000,
    );

    process.kill(-orphan, 'SIGKILL'); // an operator settles it
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    await maybeRecord(input.sessionId, 'unsettled-refused');
    expect(played.turns).toHaveLength(2);
    const state = sessionState(input.sessionDir);
    expect(state?.history[0]?.error).toBe('abandoned');
    expect(state?.dispatch.refused ?? null).toBeNull();
    const settled = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').salvage, salvageFileSchema);
    expect(settled.reports[0]).toMatchObject({ pid: orphan, settled: true, unsettled_workers: 0 });
  });

  it('SIGTERM to a worker: the running turn gets the grace period, then its harness group is killed and the worker exits', async () => {
    const { played, worker, input } = setup([{ until: forever }], 2);
    const first = worker({ shutdownGraceTime: '10s' });
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const { group, harness } = await runStarted(input.sessionDir, 1, 'planner');
    first.kill('SIGTERM');
    // for a second of a grace period ten times as long, the turn's group lives (claude may have children of its own in it)
    await staysTrue(
      "the turn's group alive within the grace period",
      () => [group, harness].every((pid) => liveGroup(group).includes(pid)),
      1000,
    );
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    expect(liveGroup(group)).toEqual([]); // cancelled cleanly: no orphan left behind

    worker();
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    await maybeRecord(input.sessionId, 'worker-sigterm');
    expect(played.turns).toHaveLength(2);
    const paths = iterationPaths(input.sessionDir, 1, 'planner');
    expect(existsSync(paths.result)).toBe(false);
    const salvage = readJsonFile(paths.salvage, salvageFileSchema);
    expect(salvage.reports[0]).toMatchObject({ pid: group, action: 'sigterm', settled: true });
    expect(sessionState(input.sessionDir)?.history[0]?.error).toBe('abandoned_after_sigterm');
  });
});
