import { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import { sessionEventSchema, type SessionEvent } from '../session/schemas';

/**
 * Inside an activity: every event the session's workflow (the one running this activity) ever sent to its directory,
 * read from its Temporal histories. Each projection an activity was given carries its events (`flush.events`), so
 * the histories of the run and of the runs it continued from hold them all, in the workflow's own numbering.
 * Deduplicated by seq (a projection whose activity failed is sent again), in seq order. What rebuilds an
 * events.jsonl that was deleted or cut short.
 */
export async function recoverSessionEvents(): Promise<SessionEvent[]> {
  const ctx = Context.current();
  const workflowId = ctx.info.workflowExecution?.workflowId;
  if (!workflowId) return [];
  const bySeq = new Map<number, SessionEvent>();
  let runId: string | undefined;
  // The latest run first, then each run it continued from.
  for (;;) {
    const history = await ctx.client.workflow.getHandle(workflowId, runId).fetchHistory();
    for (const event of history.events ?? []) {
      for (const payload of event.activityTaskScheduledEventAttributes?.input?.payloads ?? []) {
        for (const found of projectedEvents(defaultPayloadConverter.fromPayload(payload))) {
          bySeq.set(found.seq, found);
        }
      }
    }
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) break;
    runId = previous;
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The events of the projection an activity's input carries: the input itself, or its `flush` or `request.flush`. */
function projectedEvents(input: unknown): SessionEvent[] {
  const flush =
    flushOf(input) ?? flushOf(field(input, 'flush')) ?? flushOf(field(field(input, 'request'), 'flush'));
  if (!flush) return [];
  return flush.flatMap((event) => {
    const parsed = sessionEventSchema.safeParse(event);
    return parsed.success ? [parsed.data] : [];
  });
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function flushOf(value: unknown): unknown[] | null {
  const events = field(value, 'events');
  return typeof field(value, 'sessionDir') === 'string' && Array.isArray(events) ? events : null;
}
