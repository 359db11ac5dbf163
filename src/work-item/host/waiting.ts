import { appendWorkItemEvent } from '../event-log';
import { readRecord, updateRecord } from '../registry';
import type { Waiting } from '../schemas';
import { locate, type HostContext } from './context';

/**
 * The session's wait for a person, as its workflow sees it, into the work item's event log (`wait.began` with what
 * is asked, `wait.ended` when nothing is) and then the registry record, where `sessions list`, `sessions show` and
 * `inbox` read it without Temporal: a record that shows a wait has its events logged. The workflow records one wait at
 * a time. A record that is gone (closed and reset) is left alone.
 */
export async function recordWaiting(
  ctx: HostContext,
  workItem: string,
  waiting: Waiting | null,
): Promise<void> {
  const at = locate(ctx, workItem);
  const current = readRecord(at.dirs, at.slug);
  if (!current) return;
  const previous = current.waiting ?? null;
  if (previous && (waiting === null || previous.since !== waiting.since)) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'wait.ended', { ...previous });
  }
  if (waiting && previous?.since !== waiting.since) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'wait.began', { ...waiting });
  }
  await updateRecord(at.dirs, at.slug, (record) => (record ? { ...record, waiting } : null));
}
