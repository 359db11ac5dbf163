import { existsSync, mkdirSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { getHarness, type HarnessRunResult } from '../harness';
import { liveProcessGroupMembers } from '../harness/process-group';
import { readJsonl } from '../session/jsonl';
import { writeFileAtomic } from '../session/atomic';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { harnessRunDir, iterationPaths, sessionPaths, type IterationPaths } from '../session/paths';
import { renderPrompt } from '../session/prompt';
import { buildPromptVars } from '../session/prompt-vars';
import { routineEmitsGoalCheck } from '../session/routine-schedule';
import {
  controlFileSchema,
  goalCheckFileSchema,
  pendingFinishedRequestSchema,
  resultFileSchema,
  sessionEventSchema,
  type ControlFile,
  type GoalCheckFile,
  type ResultFile,
} from '../session/schemas';
import type { Flush, IterationOutcome, IterationRequest } from '../workflows/goal-session-types';
import type { ActivityDeps } from './deps';
import { heartbeatDetailsSchema, processStartTicks, trackedRuns, writeProcessRecord } from './orphans';
import { recordSalvageVerdict, salvageIteration, writeSalvage } from './salvage';
import { readExit, readRunLeft, runOutputDir } from './recover-run';
import { writeResultFiles } from './result-files';
import { projectState, readText, writeFlush, writeStateFile } from './session-files';
import { reflectUserUpdates } from './user-updates';
import { harnessRequest } from './harness-request';

const HEARTBEAT_EVERY_MS = 1000;
/** Between the reaper's SIGTERM and SIGKILL (the harness adapters' own kill grace is the same). */
const REAP_GRACE_MS = 5000;

/**
 * A retried attempt carries the same flush as the first: state.json is rewritten, but events the earlier
 * attempt already appended are not appended again (readers would dedupe them by seq; this keeps the file clean).
 */
function writeFlushForAttempt(flush: Flush, attempt: number): Promise<void> {
  if (attempt === 1 || flush.events.length === 0) return writeFlush(flush);
  let written = 0;
  for (const event of readJsonl(sessionPaths(flush.sessionDir).events, sessionEventSchema)) {
    written = Math.max(written, event.seq);
  }
  return writeFlush({ ...flush, events: flush.events.filter((event) => event.seq > written) });
}

/** Did an earlier attempt launch (or try to launch) this iteration's harness? */
function harnessStartedEarlier(paths: IterationPaths, heartbeat: unknown): boolean {
  if (existsSync(paths.harnessRunId)) return true;
  if (heartbeatDetailsSchema.safeParse(heartbeat).success) return true;
  return trackedRuns(paths.harnessOutputRoot, null).length > 0;
}

function readControl(file: string): { control: ControlFile; error: string | null } {
  try {
    return {
      control: readJsonIfExists(file, controlFileSchema) ?? { state: 'running', reason: null },
      error: null,
    };
  } catch (error) {
    // A malformed stop switch must not stop the loop by accident, but it must be visible.
    return { control: { state: 'running', reason: null }, error: (error as Error).message };
  }
}

/** A goal-check routine's verdict: the file the agent wrote, else a JSON verdict in its reply, else "no verdict". */
function settleGoalCheck(file: string, text: string): GoalCheckFile {
  try {
    const written = readJsonIfExists(file, goalCheckFileSchema);
    if (written) return written;
  } catch {
    // fall through to the reply
  }
  const match = /\{[^{}]*"goal_met"[^{}]*\}/.exec(text);
  if (match) {
    const parsed = goalCheckFileSchema.safeParse({ schema_version: 1, ...(JSON.parse(match[0]) as object) });
    if (parsed.success) {
      writeJsonAtomic(file, goalCheckFileSchema, parsed.data);
      return parsed.data;
    }
  }
  const verdict: GoalCheckFile = {
    goal_met: false,
    reason: 'the goal-check iteration produced no valid goal_check.json',
    schema_version: 1,
  };
  writeJsonAtomic(file, goalCheckFileSchema, verdict);
  return verdict;
}

export function createIterationActivities(deps: ActivityDeps) {
  return {
    /**
     * The session was stopped while a turn's worker was gone (its cancellation could only time out): reap what the
     * lost attempt left running and report how the turn was abandoned. result.json is never fabricated.
     */
    async salvageStoppedIteration(args: {
      sessionDir: string;
      iteration: number;
      routineId: string;
    }): Promise<{ error: string; salvageFile: string | null }> {
      const paths = iterationPaths(args.sessionDir, args.iteration, args.routineId);
      if (existsSync(paths.result))
        return { error: 'stopped: the session was stopped during this iteration', salvageFile: null };
      const ctx = Context.current();
      const keepAlive = setInterval(() => ctx.heartbeat(), 1000);
      try {
        const salvage = await salvageIteration({
          paths,
          iteration: args.iteration,
          routineId: args.routineId,
          heartbeatDetails: null,
          reap: { hostId: deps.hostId, graceMs: REAP_GRACE_MS },
        });
        return { error: salvage.error, salvageFile: salvage.file };
      } finally {
        clearInterval(keepAlive);
      }
    },

    /** One harness turn: prompt.txt, the harness in its own process group, result.json, the handoff record. */
    async runIteration(req: IterationRequest): Promise<IterationOutcome> {
      const ctx = Context.current();
      // The projection goes to disk once per attempt: a retry writes it first (its predecessor may have died before
      // writing anything), a first attempt while the launcher starts its harness, where the write costs no time.
      // The returned promise resolves once the events are on disk; every way out of this activity awaits it.
      let flushing: Promise<void> | null = null;
      const flush = (): Promise<void> => {
        if (!flushing) {
          flushing = writeFlushForAttempt(req.flush, ctx.info.attempt);
          flushing.catch(() => undefined); // awaited (and so reported) below
        }
        return flushing;
      };
      if (ctx.info.attempt > 1) await flush();
      const { sessionDir, cwd } = req.input;
      const paths = iterationPaths(sessionDir, req.iteration, req.routine.id);
      const dirName = basename(paths.dir);
      const startedAt = new Date().toISOString();

      // Previous iterations' handoffs are acknowledged: the workflow has recorded them.
      const previous = readJsonIfExists(paths.result, resultFileSchema);
      if (previous) {
        await flush();
        const pendingFile = readJsonIfExists(paths.pendingFinishedRequest, pendingFinishedRequestSchema);
        return {
          result: forHistory(previous),
          usage: pendingFile?.usage ?? null,
          ...readControlOutcome(sessionPaths(sessionDir).control),
          goalCheck: readJsonIfExists(paths.goalCheck, goalCheckFileSchema),
          conversationId: null,
          recovered: true,
          aborted: false,
          startedAt,
          finishedAt: new Date().toISOString(),
        };
      }

      // An earlier attempt launched the harness and died before result.json: the turn is abandoned (after its
      // orphans are reaped), never run a second time and never given a fabricated result.json.
      if (harnessStartedEarlier(paths, ctx.info.heartbeatDetails)) {
        await flush();
        return abandonTurn(deps, req, paths, startedAt);
      }

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
      // Only result.json and the handoff record must outlive the machine; these need only outlive the worker.
      writeFileAtomic(paths.prompt, prompt, { fsync: false });

      const runId = `run-${ctx.info.attempt}-${Math.random().toString(16).slice(2, 10)}`;
      const outputDir = harnessRunDir(sessionDir, req.iteration, req.routine.id, runId);
      mkdirSync(outputDir, { recursive: true });
      writeFileAtomic(paths.harnessRunId, runId, { fsync: false });

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

      const { request } = harnessRequest(deps, req, paths, { runId, outputDir, prompt });

      let processInfo: { pid: number; pgid: number } | null = null;
      // Each heartbeat is a server write: the first goes out a second into the turn. A later attempt finds the
      // process in process.json (written at spawn) and, as a backup, in the heartbeat details.
      const heartbeat = setInterval(() => ctx.heartbeat({ runId, ...processInfo }), HEARTBEAT_EVERY_MS);
      let run: HarnessRunResult;
      try {
        run = await harness.run({
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
          onLaunch: () => void flush(),
        });
      } finally {
        clearInterval(heartbeat);
        void flush();
      }
      await flush();

      // This attempt was interrupted rather than stopped by the session: the worker is shutting down, or the
      // server gave up on it (missed heartbeats) and a later attempt owns the turn (it may have written
      // salvage.json already). No result.json: the next attempt records the turn as abandoned.
      const cancel = ctx.cancellationDetails;
      const interrupted = run.aborted && cancel !== undefined && !cancel.cancelRequested;
      if (interrupted || existsSync(paths.salvage)) {
        const spawned = processInfo as { pid: number; pgid: number } | null;
        if (spawned && interrupted) {
          const left = liveProcessGroupMembers(spawned.pgid) ?? [];
          writeSalvage(paths, req.iteration, req.routine.id, [
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

      const result: ResultFile = {
        success: run.success && !run.aborted,
        text: run.success ? run.text : '',
        error: run.aborted ? 'stopped: the session was stopped during this iteration' : run.error,
        harness_run_id: runId,
        harness_output_dir: relative(cwd, outputDir) || outputDir,
        harness_session_id: run.conversationId,
        ...(run.permissionDenials
          ? { permission_denials: { count: run.permissionDenials.count, tools: run.permissionDenials.tools } }
          : {}),
      };
      const goalCheck = routineEmitsGoalCheck(req.routine)
        ? settleGoalCheck(paths.goalCheck, run.text)
        : null;
      await writeResultFiles(
        paths,
        {
          sessionId: req.input.sessionId,
          iteration: req.iteration,
          routineId: req.routine.id,
          attempt: ctx.info.attempt,
        },
        result,
        run.usage,
      );
      if (deps.faultPoint === 'after-result-json') process.kill(process.pid, 'SIGKILL');
      if (result.success && updates.trim()) {
        reflectUserUpdates(sessionDir, updates, dirName, new Date().toISOString());
      }
      return {
        result: forHistory(result),
        usage: run.usage,
        ...readControlOutcome(sessionPaths(sessionDir).control),
        goalCheck,
        conversationId: run.conversationId ?? req.conversation?.id ?? null,
        recovered: false,
        aborted: run.aborted,
        startedAt,
        finishedAt: new Date().toISOString(),
      };
    },
  };
}

/**
 * The workflow needs a turn's verdict, not its reply, and every outcome is stored in the workflow's history (50 MB
 * at most): the reply goes there clipped, enough to read in the Web UI. The whole of it is in result.json and
 * result_text.txt.
 */
export const HISTORY_TEXT_LIMIT = 2000;

function forHistory(result: ResultFile): ResultFile {
  if (result.text.length <= HISTORY_TEXT_LIMIT) return result;
  return {
    ...result,
    text: `${result.text.slice(0, HISTORY_TEXT_LIMIT)}… [${result.text.length} characters in all: see result_text.txt]`,
  };
}

function readControlOutcome(file: string): { control: ControlFile; controlError: string | null } {
  const { control, error } = readControl(file);
  return { control, controlError: error };
}

/**
 * Salvage: reap the earlier attempt's orphans and record the turn as abandoned. While an orphan cannot be
 * proven gone, refuse (a retryable error) so that no replacement turn runs beside it; state.json shows the
 * refusal as dispatch.refused until the workflow's next projection replaces it.
 */
async function abandonTurn(
  deps: ActivityDeps,
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
    const state = projectState(req.flush);
    const now = new Date().toISOString();
    writeStateFile(sessionDir, {
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
  // What the run left decides: a harness that ended by itself is recovered from its files, as the attempt that
  // started it would have recorded it; any other run is abandoned, with whatever usage it reported.
  const left = runId
    ? await readRunLeft(deps, req, paths, runId, runId === recordedRunId ? endedBeforeReap : null)
    : null;
  const usage = left?.run.usage ?? null;
  if (left?.finished) {
    const recovered = await recordRecoveredTurn(req, paths, ctx.info.attempt, runId, outputDir, left.run);
    recordSalvageVerdict(paths, req.iteration, req.routine.id, 'recovered', usage);
    return { ...recovered, startedAt, finishedAt: new Date().toISOString() };
  }
  if (salvage.file || left) recordSalvageVerdict(paths, req.iteration, req.routine.id, 'abandoned', usage);
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

/** result.json and the handoff record from a run that finished while no attempt watched it. */
async function recordRecoveredTurn(
  req: IterationRequest,
  paths: IterationPaths,
  attempt: number,
  runId: string | null,
  outputDir: string | null,
  run: HarnessRunResult,
): Promise<Omit<IterationOutcome, 'startedAt' | 'finishedAt'>> {
  const result: ResultFile = {
    success: run.success,
    text: run.success ? run.text : '',
    error: run.error,
    harness_run_id: runId,
    harness_output_dir: outputDir,
    harness_session_id: run.conversationId,
    ...(run.permissionDenials
      ? { permission_denials: { count: run.permissionDenials.count, tools: run.permissionDenials.tools } }
      : {}),
  };
  await writeResultFiles(
    paths,
    { sessionId: req.input.sessionId, iteration: req.iteration, routineId: req.routine.id, attempt },
    result,
    run.usage,
  );
  return {
    result: forHistory(result),
    usage: run.usage,
    ...readControlOutcome(sessionPaths(req.input.sessionDir).control),
    goalCheck: routineEmitsGoalCheck(req.routine) ? settleGoalCheck(paths.goalCheck, run.text) : null,
    conversationId: run.conversationId ?? req.conversation?.id ?? null,
    recovered: true,
    aborted: false,
  };
}
