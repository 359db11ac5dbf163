import { relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { readJsonFile } from '../session/json-file';
import { harnessRunDir, sessionPaths, type IterationPaths } from '../session/paths';
import { sessionStateFileSchema } from '../session/schemas';
import type { IterationOutcome, IterationRequest } from '../workflows/goal-session/types';
import type { AttemptLease } from './attempt-lease';
import type { ActivityDeps } from './deps';
import { readExit, readRunLeft, runOutputDir } from './recover-run';
import { recordSalvageVerdict, salvageIteration } from './salvage';
import { projectState, readText, writeStateFile } from './session-files';
import { readControlOutcome, recordTurn, resultOfRun } from './turn-result';

const HEARTBEAT_EVERY_MS = 1000;
/** Between the reaper's SIGTERM and SIGKILL (the harness adapters' own kill grace is the same). */
export const REAP_GRACE_MS = 5000;

/**
 * An earlier attempt launched the harness and died before result.json. Its orphans are reaped first; while one
 * cannot be proven gone, refuse (a retryable error) so that no replacement turn runs beside it, and state.json shows
 * the refusal as dispatch.refused until the workflow's next projection replaces it. Then what the run left decides:
 * a harness that ended by itself is recovered from its files, as the attempt that started it would have recorded it;
 * any other run is abandoned, with whatever usage it reported. The turn is never run a second time.
 */
export async function recoverOrAbandonTurn(
  deps: ActivityDeps,
  lease: AttemptLease,
  req: IterationRequest,
  paths: IterationPaths,
  startedAt: string,
): Promise<IterationOutcome> {
  const ctx = Context.current();
  const previous: unknown = ctx.info.heartbeatDetails;
  // Read before the reaper runs: did the harness end by itself, while no attempt watched it?
  const recordedRunId = readText(paths.harnessRunId).trim();
  const recordedDir = recordedRunId ? runOutputDir(req, recordedRunId) : null;
  const endedBeforeReap = recordedDir ? readExit(recordedDir) : null;
  // Keep the earlier attempt's run in the heartbeat details: if this attempt dies too, the next one still knows it.
  const keepAlive = setInterval(() => ctx.heartbeat(previous), HEARTBEAT_EVERY_MS);
  ctx.heartbeat(previous);
  let salvage;
  try {
    salvage = await salvageIteration({
      lease,
      paths,
      iteration: req.iteration,
      routineId: req.routine.id,
      heartbeatDetails: previous,
      reap: {
        hostId: deps.hostId,
        graceMs: REAP_GRACE_MS,
        cannotSignal: deps.faultPoint === 'reaper-cannot-signal',
      },
    });
  } finally {
    clearInterval(keepAlive);
  }
  const { sessionDir, cwd } = req.input;
  if (salvage.unsettledWorkers > 0) {
    const pids = salvage.reports.filter((r) => r.unsettled_workers > 0).map((r) => r.pid);
    const reason = `iteration ${req.iteration}: ${salvage.unsettledWorkers} orphan process(es) of an interrupted attempt may still be running (pids ${pids.join(', ')}); refusing a replacement dispatch until they are settled`;
    // on top of a newer projection when one is there (a control signal arrived during the lost attempt)
    const state =
      projectState(req.flush) ?? readJsonFile(sessionPaths(sessionDir).state, sessionStateFileSchema);
    const now = new Date().toISOString();
    await writeStateFile(sessionDir, {
      ...state,
      updated_at: now,
      dispatch: {
        ...state.dispatch,
        refused: {
          iteration: req.iteration,
          routine_id: req.routine.id,
          reason,
          unsettled_workers: salvage.unsettledWorkers,
          pids,
          salvage_file: salvage.file,
          attempt: ctx.info.attempt,
          at: now,
        },
      },
    });
    throw ApplicationFailure.create({
      type: 'UnsettledWorkers',
      message: reason,
      nonRetryable: false,
      details: [{ iteration: req.iteration, unsettled_workers: salvage.unsettledWorkers, pids }],
    });
  }

  const runId = readText(paths.harnessRunId).trim() || salvage.reports[0]?.harness_run_id || null;
  let outputDir: string | null = null;
  if (runId) {
    try {
      outputDir = relative(cwd, harnessRunDir(sessionDir, req.iteration, req.routine.id, runId)) || null;
    } catch {
      outputDir = null;
    }
  }
  const left = runId
    ? await readRunLeft(deps, req, paths, runId, {
        endedBeforeReap: runId === recordedRunId ? endedBeforeReap : null,
        signalled: salvage.reports.some((r) => r.harness_run_id === runId && r.action !== 'none'),
      })
    : null;
  const usage = left?.run.usage ?? null;
  if (left?.finished) {
    const result = resultOfRun(left.run, { runId, outputDir });
    const recorded = await recordTurn(
      lease,
      req,
      paths,
      ctx.info.attempt,
      left.run,
      result,
      sessionPaths(sessionDir).control,
    );
    await recordSalvageVerdict(lease, paths, req.iteration, req.routine.id, 'recovered', usage);
    return { ...recorded, recovered: true, startedAt, finishedAt: new Date().toISOString() };
  }
  if (salvage.file || left) {
    await recordSalvageVerdict(lease, paths, req.iteration, req.routine.id, 'abandoned', usage);
  }
  return {
    // Only the workflow's record of the turn: nothing of this is written to result.json.
    result: {
      success: false,
      text: '',
      error: salvage.error,
      harness_run_id: runId,
      harness_output_dir: outputDir,
    },
    usage,
    ...readControlOutcome(sessionPaths(sessionDir).control),
    goalCheck: null,
    conversationId: null,
    recovered: false,
    aborted: false,
    startedAt,
    finishedAt: new Date().toISOString(),
    abandoned: {
      error: salvage.error,
      salvageFile: salvage.file ?? (left ? paths.salvage : null),
      reports: salvage.reports.length,
      harnessRunId: runId,
    },
  };
}
