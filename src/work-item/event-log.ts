import { appendLine } from '../session/atomic';
import { readJsonl } from '../session/jsonl';
import { eventLogFile, type WorkItemDirs } from './paths';
import { workItemEventSchema, type WorkItemEvent, type WorkItemEventType } from './schemas';

/** Appends one line; the log is never rewritten (a reset lands in it as `session.reset`). */
export function appendWorkItemEvent(
  dirs: WorkItemDirs,
  slug: string,
  workItem: string,
  type: WorkItemEventType,
  data?: Record<string, unknown>,
): WorkItemEvent {
  const event = workItemEventSchema.parse({
    v: 1,
    ts: new Date().toISOString(),
    work_item: workItem,
    type,
    ...(data ? { data } : {}),
  });
  appendLine(eventLogFile(dirs, slug), JSON.stringify(event));
  return event;
}

/**
 * `event.delivered` for a turn that began, unless the log has it: the delivery that confirmed the submit logs it, and
 * so does the worker that took the turn-started report (which outlives a delivery attempt killed before it logged).
 * Synchronous from the read to the append: two of one process cannot both log it.
 */
export function logDeliveredOnce(
  dirs: WorkItemDirs,
  slug: string,
  workItem: string,
  delivery: { eventId: string; iteration: number },
): void {
  const logged = readWorkItemEvents(dirs, slug).some(
    (e) => e.type === 'event.delivered' && e.data?.['event_id'] === delivery.eventId,
  );
  if (logged) return;
  appendWorkItemEvent(dirs, slug, workItem, 'event.delivered', {
    event_id: delivery.eventId,
    iteration: delivery.iteration,
    submitted: true,
  });
}

export function readWorkItemEvents(dirs: WorkItemDirs, slug: string): WorkItemEvent[] {
  return readJsonl(eventLogFile(dirs, slug), workItemEventSchema);
}
