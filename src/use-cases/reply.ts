import { randomUUID } from 'node:crypto';
import { CliError, EXIT, usageError } from '../errors';
import { deliverToWorkItem } from '../temporal/work-items';
import { canonicalWorkItem, withTemporal, workItemQueues, type SessionsContext } from './context';

/** The longest reply a person may send: a paragraph or a few, not a file. */
export const MAX_REPLY_CHARS = 4000;

/**
 * A person's reply to the question a work item's session asked: delivered to its running session as its next event
 * (the harness waits at its input box, where the next event is the answer). `source` says where it came from in
 * the event log. Never starts a session: a work item with none running is refused in one line.
 */
export async function replyToSession(
  ctx: SessionsContext,
  workItemText: string,
  text: string,
  source: { by: string; via: 'cli' | 'board' },
): Promise<{ workItem: string; eventId: string }> {
  const workItem = canonicalWorkItem(workItemText);
  const reply = text.trim();
  if (reply === '') throw usageError('the reply is empty');
  if (reply.length > MAX_REPLY_CHARS)
    throw usageError(`the reply is longer than ${MAX_REPLY_CHARS} characters`);
  const eventId = `${source.via}:${randomUUID()}`;
  const delivered = await withTemporal(ctx, (client) =>
    deliverToWorkItem(
      client,
      workItemQueues(ctx),
      workItem,
      { id: eventId, text: reply, source: `${source.via} (${source.by})` },
      false,
    ),
  );
  if (delivered === 'not-running') {
    throw new CliError(`${workItem}: no running session — nothing waits for a reply`, EXIT.failure);
  }
  return { workItem, eventId };
}
