import { mkdirSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, type ActivityCancellationDetails } from '@temporalio/common';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from '../harness';
import { liveProcessGroupMembers } from '../harness/process-group';
import { harnessRunDir, sessionPaths, type IterationPaths } from '../session/paths';
import { renderPrompt } from '../session/prompt';
import { buildPromptVars } from '../session/prompt-vars';
import type { IterationRequest } from '../workflows/goal-session/types';
import { AttemptSuperseded, type AttemptLease } from './attempt-lease';
import type { ActivityDeps } from './deps';
import { thisWorker } from './live-runs';
import { processStartTicks, writeProcessRecord } from './orphans';
import { HEARTBEAT_MIN_MS, nextHeartbeatMs, registerTurn } from './running-turns';
import { writeSalvage } from './salvage';
import { readText } from './session-files';

/** What a turn's run starts from, on disk before its harness is launched. */
export interface PreparedRun {
  /** updates_from_user.md as the prompt saw it (reflected into the history once the turn succeeds). */
  updates: string;
  prompt: string;
  runId: string;
  outputDir: string;
}

/**
 * prompt.txt from the routine's template and the session, the run's id in harness_run_id.txt (a later attempt finds
 * the run by it) and its output directory. Written under the attempt's lease: a superseded attempt starts no run.
 */
export async function prepareRun(
  req: IterationRequest,
  paths: IterationPaths,
  attempt: number,
  lease: AttemptLease,
): Promise<PreparedRun> {
  const { sessionDir } = req.input;
  mkdirSync(paths.dir, { recursive: true });
  const updates = readText(sessionPaths(sessionDir).updatesFromUser);
  const prompt = renderPrompt(
    req.routine.prompt,
    buildPromptVars({
      sessionDir,
      sessionId: req.input.sessionId,
      goal: req.input.goal,
      userUpdates: updates,
      iteration: req.iteration,
      routineId: req.routine.id,
    }),
  );
  const runId = `run-${attempt}-${Math.random().toString(16).slice(2, 10)}`;
  const outputDir = harnessRunDir(sessionDir, req.iteration, req.routine.id, runId);
  mkdirSync(outputDir, { recursive: true });
  // Only result.json and the handoff record must outlive the machine; these need only outlive the worker.
  await lease.write([
    { file: paths.prompt, data: prompt, fsync: false },
    { file: paths.harnessRunId, data: runId, fsync: false },
  ]);
  return { updates, prompt, runId, outputDir };
}

/**
 * Runs the harness while heartbeating. Each heartbeat is a server write: the first goes out a second into the turn,
 * and they grow rarer while nothing changes (nextHeartbeatMs). A later attempt finds the process in process.json
 * (written at spawn) and, as a backup, in the heartbeat details. A stop reaches the turn through its own switch
 * (running-turns.ts) or through Temporal's cancellation, whichever comes first.
 *
 * When the server gave up on this attempt while this worker lives (its heartbeats did not reach a Temporal that was
 * restarting or unreachable: the attempt timed out, and its heartbeat is answered "not found"), the harness is not
 * killed: the attempt fails at once and hands the run over to the retry, which waits for it to end and recovers the
 * turn from what it leaves (live-runs.ts). The run keeps its stop switch until it ends.
 */
export async function runWatched(
  deps: ActivityDeps,
  harness: HarnessAdapter,
  request: HarnessRunRequest,
  run: PreparedRun,
  onLaunch: () => void,
  lease: AttemptLease,
): Promise<{ run: HarnessRunResult; spawned: { pid: number; pgid: number } | null }> {
  const ctx = Context.current();
  const { runId, outputDir } = run;
  let processInfo: { pid: number; pgid: number } | null = null;
  let sent: { pid: number; pgid: number } | null | undefined;
  let timer: NodeJS.Timeout | undefined;
  const beat = (afterMs: number) => {
    timer = setTimeout(() => {
      ctx.heartbeat({ runId, ...processInfo });
      const changed = sent !== processInfo;
      sent = processInfo;
      beat(nextHeartbeatMs(afterMs, changed, ctx.info.heartbeatTimeoutMs));
    }, afterMs);
  };
  beat(HEARTBEAT_MIN_MS);
  const turn = registerTurn(request.sessionDir, request.iteration);
  const stopHarness = new AbortController();
  let handOver: () => void = () => undefined;
  const handedOver = new Promise<'handed over'>((resolve) => (handOver = () => resolve('handed over')));
  const onCancel = () => {
    if (serverGaveUp(ctx.cancellationDetails) && processInfo !== null) handOver();
    else stopHarness.abort();
  };
  if (ctx.cancellationSignal.aborted) onCancel();
  else ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  const running = harness.run({
    ...request,
    signal: AbortSignal.any([stopHarness.signal, turn.signal]),
    onSpawn: (info) => {
      processInfo = info;
      writeProcessRecord(outputDir, {
        ...info,
        runId,
        attempt: ctx.info.attempt,
        host: deps.hostId,
        start_ticks: processStartTicks(info.pid),
        ...(thisWorker() ? { worker: thisWorker() } : {}),
      });
    },
    onLaunch,
  });
  // Released when the harness ends, not when this attempt does: a run handed over keeps its stop switch.
  void running.then(turn.release, turn.release);
  try {
    const ended = await Promise.race([running, handedOver]);
    if (ended === 'handed over') {
      // The retry already holds the turn: this attempt is stale, and says so as any stale attempt does.
      if (!lease.held()) throw new AttemptSuperseded(lease.name);
      throw ApplicationFailure.create({
        type: 'AttemptHandedOver',
        message: `iteration ${request.iteration}: the server gave up on this attempt while its harness runs; the retry waits for the harness and records the turn`,
        nonRetryable: false,
      });
    }
    return { run: ended, spawned: processInfo };
  } finally {
    clearTimeout(timer);
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
  }
}

/**
 * The server no longer waits for this attempt, which timed out (missed heartbeats), though nobody asked to stop it
 * and its worker is not shutting down.
 */
function serverGaveUp(details: ActivityCancellationDetails | undefined): boolean {
  return (
    details !== undefined &&
    (details.notFound || details.timedOut) &&
    !details.cancelRequested &&
    !details.workerShutdown
  );
}

/**
 * This attempt was interrupted rather than stopped by the session: the worker is shutting down, or the server gave up
 * on it (missed heartbeats). Then it writes no result.json: it reports what it killed in salvage.json and fails, and
 * the next attempt records the turn. An attempt that a later one has taken the turn from writes nothing at all.
 */
export async function failIfInterrupted(
  req: IterationRequest,
  paths: IterationPaths,
  runId: string,
  run: HarnessRunResult,
  spawned: { pid: number; pgid: number } | null,
  lease: AttemptLease,
): Promise<void> {
  if (!lease.held()) throw new AttemptSuperseded(lease.name);
  const cancel = Context.current().cancellationDetails;
  const interrupted = run.aborted && cancel !== undefined && !cancel.cancelRequested;
  if (!interrupted) return;
  if (spawned) {
    const left = liveProcessGroupMembers(spawned.pgid) ?? [];
    await writeSalvage(lease, paths, req.iteration, req.routine.id, [
      {
        harness_run_id: runId,
        pid: spawned.pid,
        pgid: spawned.pgid,
        action: run.signal === 'SIGKILL' ? 'sigkill' : 'sigterm',
        settled: left.length === 0,
        unsettled_workers: left.length,
        detail: `killed by its own worker (${cancel?.workerShutdown ? 'worker shutdown' : 'attempt superseded'})`,
      },
    ]);
  }
  throw ApplicationFailure.create({
    type: 'IterationInterrupted',
    message: `iteration ${req.iteration} was interrupted (${
      cancel?.workerShutdown
        ? 'worker shutdown'
        : cancel?.timedOut
          ? 'attempt timed out'
          : 'attempt superseded'
    }); a retry records it as abandoned`,
    nonRetryable: false,
  });
}
