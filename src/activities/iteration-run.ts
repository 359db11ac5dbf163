import { mkdirSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from '../harness';
import { liveProcessGroupMembers } from '../harness/process-group';
import { harnessRunDir, sessionPaths, type IterationPaths } from '../session/paths';
import { renderPrompt } from '../session/prompt';
import { buildPromptVars } from '../session/prompt-vars';
import type { IterationRequest } from '../workflows/goal-session-types';
import { AttemptSuperseded, type AttemptLease } from './attempt-lease';
import type { ActivityDeps } from './deps';
import { processStartTicks, writeProcessRecord } from './orphans';
import { writeSalvage } from './salvage';
import { readText } from './session-files';

const HEARTBEAT_EVERY_MS = 1000;

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
 * Runs the harness while heartbeating. Each heartbeat is a server write: the first goes out a second into the turn.
 * A later attempt finds the process in process.json (written at spawn) and, as a backup, in the heartbeat details.
 */
export async function runWatched(
  deps: ActivityDeps,
  harness: HarnessAdapter,
  request: HarnessRunRequest,
  run: PreparedRun,
  onLaunch: () => void,
): Promise<{ run: HarnessRunResult; spawned: { pid: number; pgid: number } | null }> {
  const ctx = Context.current();
  const { runId, outputDir } = run;
  let processInfo: { pid: number; pgid: number } | null = null;
  const heartbeat = setInterval(() => ctx.heartbeat({ runId, ...processInfo }), HEARTBEAT_EVERY_MS);
  try {
    const result = await harness.run({
      ...request,
      signal: ctx.cancellationSignal,
      onSpawn: (info) => {
        processInfo = info;
        writeProcessRecord(outputDir, {
          ...info,
          runId,
          attempt: ctx.info.attempt,
          host: deps.hostId,
          start_ticks: processStartTicks(info.pid),
        });
      },
      onLaunch,
    });
    return { run: result, spawned: processInfo };
  } finally {
    clearInterval(heartbeat);
  }
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
