import { temporal } from '@temporalio/proto';
import type { connectExisting } from '../../../service/connect-existing';

/**
 * Whether a worker polls this host's activity queue. Its own module, which `loopy move` loads once it runs: the
 * protos are a CommonJS package whose named exports an `import()` does not see.
 */
export async function hostQueueHasPollers(
  connected: Awaited<ReturnType<typeof connectExisting>>,
  hostQueue: string,
): Promise<boolean> {
  const { pollers } = await connected.client.workflowService.describeTaskQueue({
    namespace: connected.target.namespace,
    taskQueue: { name: hostQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (pollers ?? []).length > 0;
}
