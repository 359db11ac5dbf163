import { appendWorkItemEvent } from '../event-log';
import { updateRecord } from '../registry';
import type { Waiting } from '../schemas';
import { locate, type HostContext } from './context';

/**
 * The session's wait for a person, as its workflow sees it, into the registry record (where `sessions list`,
 * `sessions show` and `inbox` read it without Temporal) and the work item's event log: `wait.began` with what is
 * asked, `wait.ended` when nothing is. A record that is gone (closed and reset) is left alone.
 */
export async function recordWaiting(
  ctx: HostContext,
  workItem: string,
  waiting: Waiting | null,
): Promise<void> {
  const at = locate(ctx, workItem);
  let before: Waiting | null = null;
  const written = await updateRecord(at.dirs, at.slug, (current) => {
    if (!current) return null;
    before = current.waiting ?? null;
    return { ...current, waiting };
  });
  if (!written) return;
  const previous = before as Waiting | null;
  if (previous && (waiting === null || previous.since !== waiting.since)) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'wait.ended', { ...previous });
  }
  if (waiting && previous?.since !== waiting.since) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'wait.began', { ...waiting });
  }
}
