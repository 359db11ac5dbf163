import { jsonFileText } from '../session/json-file';
import type { IterationPaths } from '../session/paths';
import {
  goalCheckFileSchema,
  pendingFinishedRequestSchema,
  resultFileSchema,
  type GoalCheckFile,
  type ResultFile,
} from '../session/schemas';
import type { Usage } from '../session/schemas/usage';
import type { AttemptLease } from './attempt-lease';

/**
 * result.json, then the handoff record written after it, both durable; result_text.txt need only outlive the
 * worker; and the goal check the turn settled, when it wrote none itself. One batch under the attempt's lease: each
 * file is fsynced as it is staged (one after another: staged side by side they took no less, about 3.3 ms p50 for the
 * three), the directory once for all, and result.json's rename commits the turn (a takeover completes the rest).
 */
export async function writeResultFiles(
  lease: AttemptLease,
  paths: IterationPaths,
  turn: { sessionId: string; iteration: number; routineId: string; attempt: number },
  result: ResultFile,
  usage: Usage | null,
  goalCheck: GoalCheckFile | null,
): Promise<void> {
  await lease.write([
    { file: paths.result, data: jsonFileText(paths.result, resultFileSchema, result).text },
    { file: paths.resultText, data: result.text, fsync: false },
    {
      file: paths.pendingFinishedRequest,
      data: jsonFileText(paths.pendingFinishedRequest, pendingFinishedRequestSchema, {
        session_id: turn.sessionId,
        iteration: turn.iteration,
        routine_id: turn.routineId,
        attempt: turn.attempt,
        result,
        usage,
        written_at: new Date().toISOString(),
      }).text,
    },
    ...(goalCheck
      ? [{ file: paths.goalCheck, data: jsonFileText(paths.goalCheck, goalCheckFileSchema, goalCheck).text }]
      : []),
  ]);
}
