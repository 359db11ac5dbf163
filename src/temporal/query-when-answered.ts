import { isGrpcDeadlineError, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

/** How long a command asks again: well inside the 2 minutes an agent's shell command (claude's Bash) is given. */
const QUERY_PATIENCE_MS = 60_000;
const ASK_AGAIN_MS = 500;

/**
 * A workflow's answer to `query`, asked again while the query times out (DEADLINE_EXCEEDED): on a loaded machine the
 * worker may answer after the server's deadline (a workflow no longer in its cache is replayed first), and a command
 * that only reads where the workflow is before it acts (the node to report on, the gate to answer) must not fail
 * on a slow answer. The client retries no deadline by itself; any other failure is the command's.
 */
export async function queryWhenAnswered<Ret>(
  handle: Pick<WorkflowHandle, 'query'>,
  query: QueryDefinition<Ret, []>,
  patienceMs = QUERY_PATIENCE_MS,
): Promise<Ret> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      return await handle.query(query);
    } catch (error) {
      if (!isGrpcDeadlineError(error) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_MS));
  }
}
