import type { Client } from '@temporalio/client';
import type { SessionStateFile } from '../../../session/schemas';
import type { goalSession } from '../../../workflows/goal-session/workflow';

/** The live state from the workflow when a worker answers quickly; null otherwise (callers fall back to state.json). */
export async function liveState(
  client: Client,
  sessionId: string,
  deadlineMs = 2500,
): Promise<{ state: SessionStateFile; source: 'live' } | null> {
  // Loaded here, once connected: the workflow SDK is not worth loading for a command that fails to connect.
  const { statusQuery } = await import('../../../workflows/goal-session/messages.js');
  try {
    const handle = client.workflow.getHandle<typeof goalSession>(sessionId);
    const state = await client.connection.withDeadline(Date.now() + deadlineMs, () =>
      handle.query(statusQuery),
    );
    return { state, source: 'live' };
  } catch {
    return null;
  }
}
