import { randomUUID } from 'node:crypto';
import { WorkflowUpdateRPCTimeoutOrCancelledError, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { WorkflowUpdateOptions } from '@temporalio/client';

/** How long a command waits for an update (a start clones, then waits for the harness's TUI to be ready). */
const UPDATE_PATIENCE_MS = 15 * 60_000;

/**
 * Runs an update to its end, however long it takes. The server answers one call at its own deadline ("context
 * deadline exceeded") while the update runs on: the call is made again under the same update id, which attaches
 * to the update under way instead of running another.
 */
export async function updateToEnd<Ret, Args extends unknown[]>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
): Promise<Ret> {
  // executeUpdate's overloads take no arguments or at least one; this runs either
  const execute = handle.executeUpdate.bind(handle) as (
    update: UpdateDefinition<Ret, Args>,
    options: WorkflowUpdateOptions & { args: Args },
  ) => Promise<Ret>;
  const updateId = randomUUID();
  const deadline = Date.now() + UPDATE_PATIENCE_MS;
  for (;;) {
    try {
      return await execute(update, { args, updateId });
    } catch (error) {
      if (!(error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) || Date.now() > deadline) throw error;
    }
  }
}
