import { existsSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { getHarness } from '../harness';
import { iterationPaths, sessionPaths, type IterationPaths } from '../session/paths';
import type {
  IterationOutcome,
  IterationRequest,
  ProjectionReport,
  StoppedTurnSalvage,
} from '../workflows/goal-session/types';
import { AttemptSuperseded, takeLease } from './attempt-lease';
import type { ActivityDeps } from './deps';
import { withHarnessCredentials } from './harness-credentials';
import { harnessRequest } from './harness-request';
import { failIfInterrupted, prepareRun, runWatched } from './iteration-run';
import { awaitRunsOfLiveWorkers } from './live-runs';
import { heartbeatDetailsSchema, trackedRuns } from './orphans';
import { recoverOrAbandonTurn } from './recover-turn';
import { flushWriter } from './flush-writer';
import { stopTurn } from './running-turns';
import { reportingStepStart } from './step-started';
import { readRecordedTurn, recordTurn, resultOfRun } from './turn-result';
import { reflectUserUpdates } from './user-updates';
import { warnNewlyUnpriced } from './unpriced-warning';

/** Did an earlier attempt launch (or try to launch) this iteration's harness? */
function harnessStartedEarlier(paths: IterationPaths, heartbeat: unknown): boolean {
  if (existsSync(paths.harnessRunId)) return true;
  if (heartbeatDetailsSchema.safeParse(heartbeat).success) return true;
  return trackedRuns(paths.harnessOutputRoot, null).length > 0;
}

/**
 * A superseded attempt fails quietly: a newer attempt owns the turn, and the server no longer waits for this one
 * (its failure is refused like its result would be). It is logged, for whoever wonders what the stale worker did.
 * Not retryable: were the server still waiting for it (the stopped session's salvage took the turn), a retry would
 * only be refused again.
 */
async function fenced<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof AttemptSuperseded)) throw error;
    const ctx = Context.current();
    ctx.log.warn(`stale attempt refused: ${error.message}`, { attempt: ctx.info.attempt });
    throw ApplicationFailure.create({
      type: 'AttemptSuperseded',
      message: error.message,
      nonRetryable: true,
    });
  }
}

export function createIterationActivities(deps: ActivityDeps) {
  return {
    /**
     * The session was stopped while its turn's activity failed or was cancelled without an outcome (its worker was
     * gone, or the stop came before the harness ran). The turn is taken from every attempt (one that wakes up later
     * writes nothing) and settled as a retry would settle it: result.json already written, or a harness that ended by
     * itself, is the turn recovered; anything else is abandoned after its orphans are reaped, with whatever usage its
     * run printed. Either way what the turn cost is booked.
     */
    salvageStoppedIteration(args: { request: IterationRequest }): Promise<StoppedTurnSalvage> {
      return fenced(async () => {
        const { request } = args;
        const paths = iterationPaths(request.input.sessionDir, request.iteration, request.routine.id);
        const lease = takeLease(paths.dir, 'stop');
        const startedAt = new Date().toISOString();
        const recorded = readRecordedTurn(paths, sessionPaths(request.input.sessionDir).control, startedAt);
        if (recorded) return { outcome: recorded };
        return { outcome: await recoverOrAbandonTurn(deps, lease, request, paths, startedAt) };
      });
    },

    /**
     * A stop, straight to the running turn when this worker process runs it: its harness is stopped as by a
     * cancellation, without waiting for a heartbeat's reply to bring one. False when this process does not run it.
     */
    async stopRunningTurn(args: { sessionDir: string; iteration: number }): Promise<boolean> {
      return stopTurn(args.sessionDir, args.iteration);
    },

    /** One harness turn: prompt.txt, the harness in its own process group, result.json, the handoff record. */
    runIteration(req: IterationRequest): Promise<IterationOutcome> {
      return fenced(() => reportingStepStart(req.startSignal, () => runTurn(deps, req)));
    },
  };
}

async function runTurn(deps: ActivityDeps, req: IterationRequest): Promise<IterationOutcome> {
  const ctx = Context.current();
  const { sessionDir, cwd } = req.input;
  const paths = iterationPaths(sessionDir, req.iteration, req.routine.id);
  // First of all, the turn is taken from any earlier attempt, which may only be stopped, not gone: nothing it
  // writes from now on lands, and whatever it wrote before is read below.
  const lease = takeLease(paths.dir, { dispatch: req.dispatch ?? 1, attempt: ctx.info.attempt });
  // The projection goes to disk once per attempt: a retry, or a turn dispatched again, writes it first (its
  // predecessor may have died or failed before writing anything), a first attempt while the launcher starts its
  // harness, where the write costs no time. The returned promise resolves once the events are on disk; every way out
  // of this activity awaits it. A write that fails (a full disk) rejects it, never throws into the launcher.
  let flushing: Promise<ProjectionReport> | null = null;
  const flush = (): Promise<ProjectionReport> => {
    if (!flushing) {
      // async: a write that throws rejects the promise
      flushing = flushWriter(deps)(req.flush);
      flushing.catch(() => undefined); // awaited (and so reported) below
    }
    return flushing;
  };
  if (deps.faultPoint === `before-projection:${req.iteration}` && ctx.info.attempt === 1) {
    process.kill(process.pid, 'SIGKILL');
  }
  if (ctx.info.attempt > 1 || (req.dispatch ?? 1) > 1) await flush();
  const controlFile = sessionPaths(sessionDir).control;
  const startedAt = new Date().toISOString();

  // The turn was recorded by an earlier attempt, which died before it completed: its record is the outcome.
  const recordedEarlier = readRecordedTurn(paths, controlFile, startedAt);
  if (recordedEarlier) return { ...recordedEarlier, projection: await flush() };

  // An earlier attempt launched the harness and died before result.json, or failed to write it (a file fault that
  // blocked the session until its resume dispatched the turn again), or timed out while its worker lives: the turn is
  // recovered from what its harness left, or abandoned (after its orphans are reaped), never run a second time.
  if (harnessStartedEarlier(paths, ctx.info.heartbeatDetails)) {
    const projection = await flush();
    // A run whose worker lives was handed over, not orphaned: it ends by itself, and is recovered then.
    const turn = { iteration: req.iteration, timeoutMs: req.input.iterationTimeoutMs };
    await awaitRunsOfLiveWorkers(deps, paths, turn, ctx.info.heartbeatDetails);
    return { ...(await recoverOrAbandonTurn(deps, lease, req, paths, startedAt)), projection };
  }

  const prepared = await prepareRun(req, paths, ctx.info.attempt, lease);
  let harness;
  try {
    harness = getHarness(req.routine.harness ?? req.input.harness);
  } catch (error) {
    await flush();
    throw ApplicationFailure.create({
      type: 'BadInput',
      message: (error as Error).message,
      nonRetryable: true,
    });
  }
  const { request } = harnessRequest(deps, req, paths, prepared);
  const launched = await withHarnessCredentials(deps, req.routine.harness ?? req.input.harness, request);
  let watched;
  try {
    watched = await runWatched(deps, harness, launched, prepared, () => void flush(), lease);
  } finally {
    void flush();
  }
  const projection = await flush();
  const { run, spawned } = watched;
  await failIfInterrupted(req, paths, prepared.runId, run, spawned, lease);

  const outputDir = relative(cwd, prepared.outputDir) || prepared.outputDir;
  const result = resultOfRun(run, { runId: prepared.runId, outputDir });
  if (deps.faultPoint === 'stop-before-result-json') process.kill(process.pid, 'SIGSTOP');
  const recorded = await recordTurn(lease, req, paths, ctx.info.attempt, run, result, controlFile);
  if (deps.faultPoint === 'after-result-json') process.kill(process.pid, 'SIGKILL');
  warnNewlyUnpriced(req.input, req.iteration, result.unpriced_models ?? [], (line) => ctx.log.warn(line));
  if (result.success && prepared.updates.trim()) {
    reflectUserUpdates(sessionDir, prepared.updates, basename(paths.dir), new Date().toISOString());
  }
  return { ...recorded, recovered: false, startedAt, finishedAt: new Date().toISOString(), projection };
}
