import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import type { TheLoopConfig } from '../config/schema';
import { requireDuration } from '../config/duration';
import {
  REPO_POLLER_WORKFLOW_TYPE,
  repoPollerWorkflowId,
  type RepoPollerInput,
} from '../workflows/repo-poller/workflow';
import { parseRepository } from '../github/api';

/**
 * Starts one `repo-poller/<repo>` per poller.repositories entry, joining any that already runs
 * (USE_EXISTING): safe to call on every start. Returns the workflow ids.
 */
export async function ensureRepoPollers(
  client: Client,
  config: TheLoopConfig,
  queues: { taskQueue: string; hostQueue: string },
): Promise<string[]> {
  const intervalMs = requireDuration(config.poller.interval, 'poller.interval');
  const ids: string[] = [];
  for (const repository of config.poller.repositories) {
    if (!parseRepository(repository))
      throw new Error(`poller.repositories: '${repository}' is not [HOST/]OWNER/REPO`);
    const input: RepoPollerInput = { repository, intervalMs, hostQueue: queues.hostQueue };
    const handle = await client.workflow.start(REPO_POLLER_WORKFLOW_TYPE, {
      taskQueue: queues.taskQueue,
      workflowId: repoPollerWorkflowId(repository),
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      staticSummary: `GitHub poller for ${repository}`,
    });
    ids.push(handle.workflowId);
  }
  return ids;
}
