import { existsSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { getHarness } from '../harness';
import { readJsonl } from '../session/jsonl';
import { readJsonIfExists } from '../session/json-file';
import { iterationPaths, sessionPaths, type IterationPaths } from '../session/paths';
import {
  goalCheckFileSchema,
  pendingFinishedRequestSchema,
  resultFileSchema,
  sessionEventSchema,
} from '../session/schemas';
import type { Flush, IterationOutcome, IterationRequest } from '../workflows/goal-session-types';
import type { ActivityDeps } from './deps';
import { harnessRequest } from './harness-request';
import { failIfInterrupted, prepareRun, runWatched } from './iteration-run';
import { heartbeatDetailsSchema, trackedRuns } from './orphans';
import { recoverOrAbandonTurn, REAP_GRACE_MS } from './recover-turn';
import { salvageIteration } from './salvage';
import { writeFlush } from './session-files';
import { stopTurn } from './running-turns';
import { reportStepStarted } from './step-started';
import { forHistory, readControlOutcome, recordTurn, resultOfRun } from './turn-result';
import { reflectUserUpdates } from './user-updates';

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

    /**
     * A stop, straight to the running turn when this worker process runs it: its harness is stopped as by a
     * cancellation, without waiting for a heartbeat's reply to bring one. False when this process does not run it.
     */
    async stopRunningTurn(args: { sessionDir: string; iteration: number }): Promise<boolean> {
      return stopTurn(args.sessionDir, args.iteration);
    },

    /** One harness turn: prompt.txt, the harness in its own process group, result.json, the handoff record. */
    async runIteration(req: IterationRequest): Promise<IterationOutcome> {
      const ctx = Context.current();
      reportStepStarted(req.startSignal);
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
      const controlFile = sessionPaths(sessionDir).control;
      const startedAt = new Date().toISOString();

      // Previous iterations' handoffs are acknowledged: the workflow has recorded them.
      const previous = readJsonIfExists(paths.result, resultFileSchema);
      if (previous) {
        await flush();
        const pendingFile = readJsonIfExists(paths.pendingFinishedRequest, pendingFinishedRequestSchema);
        return {
          result: forHistory(previous),
          usage: pendingFile?.usage ?? null,
          ...readControlOutcome(controlFile),
          goalCheck: readJsonIfExists(paths.goalCheck, goalCheckFileSchema),
          conversationId: null,
          recovered: true,
          aborted: false,
          startedAt,
          finishedAt: new Date().toISOString(),
        };
      }

      // An earlier attempt launched the harness and died before result.json: the turn is recovered from what its
      // harness left, or abandoned (after its orphans are reaped), never run a second time.
      if (harnessStartedEarlier(paths, ctx.info.heartbeatDetails)) {
        await flush();
        return recoverOrAbandonTurn(deps, req, paths, startedAt);
      }

      const prepared = prepareRun(req, paths, ctx.info.attempt);
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
      let watched;
      try {
        watched = await runWatched(deps, harness, request, prepared, () => void flush());
      } finally {
        void flush();
      }
      await flush();
      const { run, spawned } = watched;
      failIfInterrupted(req, paths, prepared.runId, run, spawned, existsSync(paths.salvage));

      const outputDir = relative(cwd, prepared.outputDir) || prepared.outputDir;
      const result = resultOfRun(run, { runId: prepared.runId, outputDir });
      const recorded = await recordTurn(req, paths, ctx.info.attempt, run, result, controlFile);
      if (deps.faultPoint === 'after-result-json') process.kill(process.pid, 'SIGKILL');
      if (result.success && prepared.updates.trim()) {
        reflectUserUpdates(sessionDir, prepared.updates, basename(paths.dir), new Date().toISOString());
      }
      return { ...recorded, recovered: false, startedAt, finishedAt: new Date().toISOString() };
    },
  };
}
