import type { DroppedEvent } from '../../workflows/work-item/messages';
import { appendWorkItemEvent } from '../event-log';
import { eventLogFile } from '../paths';
import { locate, type HostContext } from './context';

/**
 * The events a closing session still held, each an `event.dropped` line (with its text) in the work item's event
 * log; the line a close reports about them, or null when there were none.
 */
export function recordDropped(
  ctx: HostContext,
  workItem: string,
  dropped: DroppedEvent[] | undefined,
): string | null {
  if (!dropped || dropped.length === 0) return null;
  const at = locate(ctx, workItem);
  for (const { id, text, source } of dropped) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'event.dropped', { id, text, source });
  }
  const n = dropped.length;
  return `dropped ${n} queued event${n === 1 ? '' : 's'} that no turn took (event.dropped in ${eventLogFile(at.dirs, at.slug)})`;
}
