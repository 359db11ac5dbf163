import type { goalSession } from '../../../workflows/goal-session/workflow';
import type { CliContext } from '../../../service/context';
import { connectExisting } from '../../../service/ensure-service';
import { CliError, EXIT, usageError } from '../../../errors';
import { locateSession } from '../../locate-session';
import { processIo } from '../../io';

/** `loopy update`: appends to updates_from_user.md and tells the workflow how many bytes arrived. */
export async function run(ctx: CliContext, session: string, words: string[]): Promise<number> {
  const text = words.join(' ').trim();
  if (!text) throw usageError('the update is empty: say what should change');
  const connected = await connectExisting(ctx);
  try {
    const located = await locateSession(process.cwd(), session, async () => connected.client);
    const handle = connected.client.workflow.getHandle<typeof goalSession>(located.sessionId);
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      throw new CliError(
        `session ${located.sessionId} has ended; nothing would read the update`,
        EXIT.failure,
      );
    }
    const { sendUserUpdate } = await import('../../../use-cases/goal-control.js');
    const file = await sendUserUpdate(handle, located.sessionDir, text);
    processIo.out(`update appended to ${file}; the next iteration reads it first`);
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
