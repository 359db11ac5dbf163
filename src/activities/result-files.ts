import { writeFilesAtomic } from '../session/atomic';
import { jsonFileText } from '../session/json-file';
import type { IterationPaths } from '../session/paths';
import { pendingFinishedRequestSchema, resultFileSchema, type ResultFile } from '../session/schemas';
import type { Usage } from '../session/schemas/usage';

/**
 * result.json, then the handoff record written after it, both durable; result_text.txt need only outlive the
 * worker. One batch: the two fsyncs are waited for together.
 */
export async function writeResultFiles(
  paths: IterationPaths,
  turn: { sessionId: string; iteration: number; routineId: string; attempt: number },
  result: ResultFile,
  usage: Usage | null,
): Promise<void> {
  await writeFilesAtomic([
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
  ]);
}
