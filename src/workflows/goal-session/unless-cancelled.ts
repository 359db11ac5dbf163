import { CancellationScope, isCancellation } from '@temporalio/workflow';

/**
 * Awaits a step that a cancellation may interrupt; a goal session's loop then stops through its
 * noteTemporalCancellation. Any other failure is the step's own and is thrown.
 */
export async function unlessCancelled(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!isCancellation(error) || !CancellationScope.current().consideredCancelled) throw error;
  }
}
