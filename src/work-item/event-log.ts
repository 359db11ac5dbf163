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

export function readWorkItemEvents(dirs: WorkItemDirs, slug: string): WorkItemEvent[] {
  return readJsonl(eventLogFile(dirs, slug), workItemEventSchema);
}
