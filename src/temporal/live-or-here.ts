import type { Client, WorkflowHandle } from '@temporalio/client';
import { runningWorkItem } from './work-items';

/**
 * The "live workflow, else this machine" rule, for every entry point that acts on a work item (the CLI's verbs,
 * the bridge's keywords): when the work item's workflow runs, it acts, on the machine that holds the session and in
 * line with its other operations; when none runs, nothing else will, so the caller acts `here`, on this machine's
 * records (or finds there is nothing to act on).
 */
export async function liveOrHere<T>(
  client: Client,
  workItem: string,
  live: (workflow: WorkflowHandle) => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  const workflow = await runningWorkItem(client, workItem);
  return workflow ? live(workflow) : here();
}
