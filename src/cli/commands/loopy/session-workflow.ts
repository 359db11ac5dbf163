import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { CliError, EXIT } from '../../../errors';
import type { connectExisting } from '../../../service/connect-existing';
import type { goalSession } from '../../../workflows/goal-session/workflow';
import { locateSession, type LocatedSession } from '../../locate-session';

/** A goal session's workflow, as a verb that signals or updates it finds it: unknown to Temporal is a usage error. */
export async function sessionWorkflow(
  connected: Awaited<ReturnType<typeof connectExisting>>,
  id: string | undefined,
): Promise<{
  located: LocatedSession;
  handle: WorkflowHandle<typeof goalSession>;
  description: WorkflowExecutionDescription;
}> {
  const located = await locateSession(process.cwd(), id, async () => connected.client);
  const handle = connected.client.workflow.getHandle<typeof goalSession>(located.sessionId);
  try {
    return { located, handle, description: await handle.describe() };
  } catch {
    throw new CliError(
      `session ${located.sessionId} is not known to Temporal at ${connected.target.address}`,
      EXIT.usage,
    );
  }
}
