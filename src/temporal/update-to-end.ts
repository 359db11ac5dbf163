import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
  type WorkflowUpdateOptions,
} from '@temporalio/client';
import type { UpdateDefinition, Workflow } from '@temporalio/common';

/** How long a command waits for an update (a start clones, then waits for the harness's TUI to be ready). */
const UPDATE_PATIENCE_MS = 15 * 60_000;

/**
 * Makes `call` again under the same update id while the server answers it at its own deadline ("context deadline
 * exceeded") and the update runs on: the new call attaches to the update under way instead of running another.
 */
async function untilItEnds<Ret>(call: (updateId: string) => Promise<Ret>): Promise<Ret> {
  const updateId = randomUUID();
  const deadline = Date.now() + UPDATE_PATIENCE_MS;
  for (;;) {
    try {
      return await call(updateId);
    } catch (error) {
      if (!(error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) || Date.now() > deadline) throw error;
    }
  }
}

/** Runs an update to its end, however long it takes. */
export function updateToEnd<Ret, Args extends unknown[]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
): Promise<Ret> {
  // executeUpdate's overloads take no arguments or at least one; this runs either
  const execute = handle.executeUpdate.bind(handle) as (
    update: UpdateDefinition<Ret, Args>,
    options: WorkflowUpdateOptions & { args: Args },
  ) => Promise<Ret>;
  return untilItEnds((updateId) => execute(update, { args, updateId }));
}

/**
 * Starts the workflow `start` describes, or finds it running, with the update in the same request (its handler
 * runs before any signal sent after it), and runs the update to its end. Each call needs an operation of its own.
 */
export function updateWithStartToEnd<Ret, Args extends unknown[], W extends Workflow>(
  client: Client,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  start: () => WithStartWorkflowOperation<W>,
): Promise<Ret> {
  return untilItEnds((updateId) =>
    client.workflow.executeUpdateWithStart(update, { args, updateId, startWorkflowOperation: start() }),
  );
}
