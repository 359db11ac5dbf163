import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { getHarness, type HarnessRunResult } from '../harness';
import { readJsonIfExists, writeFileAtomic, writeJsonAtomic } from '../session/atomic';
import { harnessRunDir, iterationPaths, sessionPaths } from '../session/paths';
import { renderPrompt } from '../session/prompt';
import { routineEmitsGoalCheck } from '../session/routine-schedule';
import {
  controlFileSchema,
  goalCheckFileSchema,
  pendingFinishedRequestSchema,
  resultFileSchema,
  type ControlFile,
  type GoalCheckFile,
  type ResultFile,
} from '../session/schemas';
import type { IterationOutcome, IterationRequest } from '../workflows/goal-session-types';
import type { ActivityDeps } from './deps';
import { readText, writeFlush } from './session-files';
import { reflectUserUpdates } from './user-updates';

const HEARTBEAT_EVERY_MS = 1000;

function promptVars(
  req: IterationRequest,
  dir: string,
  outputRoot: string,
  goalCheckFile: string,
  updates: string,
) {
  const paths = sessionPaths(req.input.sessionDir);
  return {
    goal: req.input.goal,
    goal_file: paths.goal,
    session_dir: paths.dir,
    session_id: req.input.sessionId,
    control_file: paths.control,
    updates_file: paths.updatesFromUser,
    user_updates: updates.trim() ? updates.trim() : '(none)',
    project_state_dir: paths.projectStateDir,
    finished_file: paths.finished,
    iteration: String(req.iteration),
    iteration_dir: dir,
    routine_id: req.routine.id,
    harness_output_dir: outputRoot,
    goal_check_file: goalCheckFile,
    eval_checks_dir: paths.evalChecksDir,
    eval_results_dir: paths.evalResultsDir,
    child_requests_dir: paths.childRequestsDir,
    children_dir: paths.childrenDir,
  };
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
    /** One harness turn: prompt.txt, the harness in its own process group, result.json, the handoff record. */
    async runIteration(req: IterationRequest): Promise<IterationOutcome> {
      const ctx = Context.current();
      writeFlush(req.flush);
      const { sessionDir, cwd } = req.input;
      const paths = iterationPaths(sessionDir, req.iteration, req.routine.id);
      const dirName = basename(paths.dir);
      const startedAt = new Date().toISOString();

      // Previous iterations' handoffs are acknowledged: the workflow has recorded them.
      const previous = readJsonIfExists(paths.result, resultFileSchema);
      if (previous) {
        const pendingFile = readJsonIfExists(paths.pendingFinishedRequest, pendingFinishedRequestSchema);
        return {
          result: previous,
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

      mkdirSync(paths.dir, { recursive: true });
      const updates = readText(sessionPaths(sessionDir).updatesFromUser);
      const prompt = renderPrompt(
        req.routine.prompt,
        promptVars(req, paths.dir, paths.harnessOutputRoot, paths.goalCheck, updates),
      );
      writeFileAtomic(paths.prompt, prompt);

      const runId = `run-${ctx.info.attempt}-${Math.random().toString(16).slice(2, 10)}`;
      const outputDir = harnessRunDir(sessionDir, req.iteration, req.routine.id, runId);
      mkdirSync(outputDir, { recursive: true });
      writeFileAtomic(paths.harnessRunId, runId);

      const harnessName = req.routine.harness ?? req.input.harness;
      let harness;
      try {
        harness = getHarness(harnessName);
      } catch (error) {
        throw ApplicationFailure.create({
          type: 'BadInput',
          message: (error as Error).message,
          nonRetryable: true,
        });
      }
      const options = req.routine.harness_options;
      const launch = deps.config.harness[harnessName === 'command' ? 'claude' : harnessName];
      const budgetCaps = [
        options.max_budget_usd,
        launch.maxBudgetUsdPerTurn,
        req.remainingBudgetUsd ?? undefined,
      ].filter((v): v is number => typeof v === 'number' && v > 0);

      let processInfo: { pid: number; pgid: number } | null = null;
      const heartbeat = setInterval(() => ctx.heartbeat({ runId, ...processInfo }), HEARTBEAT_EVERY_MS);
      ctx.heartbeat({ runId });
      let run: HarnessRunResult;
      try {
        run = await harness.run({
          prompt,
          promptFile: paths.prompt,
          cwd,
          sessionDir,
          iterationDir: paths.dir,
          goalFile: sessionPaths(sessionDir).goal,
          controlFile: sessionPaths(sessionDir).control,
          outputDir,
          runId,
          iteration: req.iteration,
          routineId: req.routine.id,
          timeoutMs: req.input.iterationTimeoutMs,
          conversation: req.conversation ?? undefined,
          options: {
            command: options.command ?? (harnessName === 'command' ? undefined : launch.command),
            commandLine: options.command_line ?? req.input.harnessCommand ?? undefined,
            permissionMode: options.permission_mode ?? launch.permissionMode,
            extraArgs: [
              ...(harnessName === 'command' ? [] : launch.extraArgs),
              ...(options.extra_args ?? []),
            ],
            maxBudgetUsd: budgetCaps.length > 0 ? Math.min(...budgetCaps) : undefined,
          },
          signal: ctx.cancellationSignal,
          onSpawn: (info) => {
            processInfo = info;
            writeFileSync(
              `${outputDir}/process.json`,
              JSON.stringify({ ...info, runId, attempt: ctx.info.attempt, host: deps.hostId }),
            );
            ctx.heartbeat({ runId, ...info });
          },
        });
      } finally {
        clearInterval(heartbeat);
      }

      const result: ResultFile = {
        success: run.success && !run.aborted,
        text: run.success ? run.text : '',
        error: run.aborted ? 'stopped: the session was stopped during this iteration' : run.error,
        harness_run_id: runId,
        harness_output_dir: relative(cwd, outputDir) || outputDir,
      };
      writeJsonAtomic(paths.result, resultFileSchema, result);
      writeFileAtomic(paths.resultText, result.text);
      const goalCheck = routineEmitsGoalCheck(req.routine)
        ? settleGoalCheck(paths.goalCheck, run.text)
        : null;
      writeJsonAtomic(paths.pendingFinishedRequest, pendingFinishedRequestSchema, {
        session_id: req.input.sessionId,
        iteration: req.iteration,
        routine_id: req.routine.id,
        attempt: ctx.info.attempt,
        result,
        usage: run.usage,
        written_at: new Date().toISOString(),
      });
      if (deps.faultPoint === 'after-result-json') process.kill(process.pid, 'SIGKILL');
      if (result.success && updates.trim()) {
        reflectUserUpdates(sessionDir, updates, dirName, new Date().toISOString());
      }
      return {
        result,
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

function readControlOutcome(file: string): { control: ControlFile; controlError: string | null } {
  const { control, error } = readControl(file);
  return { control, controlError: error };
}
