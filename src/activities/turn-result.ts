import { readJsonIfExists } from '../session/json-file';
import type { HarnessRunResult } from '../harness';
import type { IterationPaths } from '../session/paths';
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
import type { IterationOutcome, IterationRequest } from '../workflows/goal-session/types';
import type { AttemptLease } from './attempt-lease';
import { writeResultFiles } from './result-files';

/**
 * The workflow needs a turn's verdict, not its reply, and every outcome is stored in the workflow's history (50 MB
 * at most): the reply goes there clipped, enough to read in the Web UI. The whole of it is in result.json and
 * result_text.txt.
 */
export const HISTORY_TEXT_LIMIT = 2000;

export function forHistory(result: ResultFile): ResultFile {
  if (result.text.length <= HISTORY_TEXT_LIMIT) return result;
  return {
    ...result,
    text: `${result.text.slice(0, HISTORY_TEXT_LIMIT)}… [${result.text.length} characters in all: see result_text.txt]`,
  };
}

/** control.json's stop switch as read after a turn, and why it could not be read. */
export function readControlOutcome(file: string): { control: ControlFile; controlError: string | null } {
  try {
    return {
      control: readJsonIfExists(file, controlFileSchema) ?? { state: 'running', reason: null },
      controlError: null,
    };
  } catch (error) {
    // A malformed stop switch must not stop the loop by accident, but it must be visible.
    return { control: { state: 'running', reason: null }, controlError: (error as Error).message };
  }
}

/**
 * A goal-check routine's verdict: the file the agent wrote, else a JSON verdict in its reply, else "no verdict".
 * `toWrite` when the agent wrote no valid file: the verdict goes to goal_check.json with the turn's result.
 */
export function settleGoalCheck(file: string, text: string): { verdict: GoalCheckFile; toWrite: boolean } {
  try {
    const written = readJsonIfExists(file, goalCheckFileSchema);
    if (written) return { verdict: written, toWrite: false };
  } catch {
    // fall through to the reply
  }
  const match = /\{[^{}]*"goal_met"[^{}]*\}/.exec(text);
  if (match) {
    const parsed = goalCheckFileSchema.safeParse({ schema_version: 1, ...(JSON.parse(match[0]) as object) });
    if (parsed.success) return { verdict: parsed.data, toWrite: true };
  }
  const verdict: GoalCheckFile = {
    goal_met: false,
    reason: 'the goal-check iteration produced no valid goal_check.json',
    schema_version: 1,
  };
  return { verdict, toWrite: true };
}

/** result.json's content for a harness run that ended (watched, or read from its files after a crash). */
export function resultOfRun(
  run: HarnessRunResult,
  where: { runId: string | null; outputDir: string | null },
): ResultFile {
  return {
    success: run.success && !run.aborted,
    text: run.success ? run.text : '',
    error: run.aborted ? 'stopped: the session was stopped during this iteration' : run.error,
    harness_run_id: where.runId,
    harness_output_dir: where.outputDir,
    harness_session_id: run.conversationId,
    ...(run.permissionDenials
      ? { permission_denials: { count: run.permissionDenials.count, tools: run.permissionDenials.tools } }
      : {}),
    ...(run.unpricedModels && run.unpricedModels.length > 0 ? { unpriced_models: run.unpricedModels } : {}),
  };
}

/**
 * A turn an earlier attempt recorded (result.json, with its usage in the handoff record) but never completed: its
 * record is the outcome, read back for the workflow. Null when result.json was not written.
 */
export function readRecordedTurn(
  paths: IterationPaths,
  controlFile: string,
  startedAt: string,
): Omit<IterationOutcome, 'projection'> | null {
  const result = readJsonIfExists(paths.result, resultFileSchema);
  if (!result) return null;
  return {
    result: forHistory(result),
    usage: readJsonIfExists(paths.pendingFinishedRequest, pendingFinishedRequestSchema)?.usage ?? null,
    ...readControlOutcome(controlFile),
    goalCheck: readJsonIfExists(paths.goalCheck, goalCheckFileSchema),
    conversationId: null,
    recovered: true,
    aborted: false,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

/**
 * Records a turn whose harness ended: result.json, the handoff record, the goal check, and the outcome the workflow
 * books (with the reply clipped for its history). Under the attempt's lease: a superseded attempt records nothing.
 */
export async function recordTurn(
  lease: AttemptLease,
  req: IterationRequest,
  paths: IterationPaths,
  attempt: number,
  run: HarnessRunResult,
  result: ResultFile,
  controlFile: string,
): Promise<Omit<IterationOutcome, 'startedAt' | 'finishedAt' | 'recovered'>> {
  const goalCheck = routineEmitsGoalCheck(req.routine) ? settleGoalCheck(paths.goalCheck, run.text) : null;
  await writeResultFiles(
    lease,
    paths,
    { sessionId: req.input.sessionId, iteration: req.iteration, routineId: req.routine.id, attempt },
    result,
    run.usage,
    goalCheck?.toWrite ? goalCheck.verdict : null,
  );
  return {
    result: forHistory(result),
    usage: run.usage,
    ...readControlOutcome(controlFile),
    goalCheck: goalCheck?.verdict ?? null,
    conversationId: run.conversationId ?? req.conversation?.id ?? null,
    aborted: run.aborted,
  };
}
