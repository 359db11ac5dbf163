import type { WorkflowHandle } from '@temporalio/client';
import { pollUntil } from '../process/poll-until';
import { followJsonl } from '../session/jsonl';
import { sessionPaths } from '../session/paths';
import { sessionEventSchema, type SessionEvent } from '../session/schemas/event';
import type { goalSession } from '../workflows/goal-session/workflow';
import type { GoalSessionResult } from '../workflows/goal-session/types';
import { formatEvent } from './format-session';
import type { Io } from './io';

export type EventFormat = 'text' | 'jsonl';

export function printEvent(event: SessionEvent, format: EventFormat, io: Io): void {
  io.out(format === 'jsonl' ? JSON.stringify(event) : formatEvent(event));
}

/**
 * The workflow's result, or null once `signal` aborts: the abort cancels the long poll itself, so that Ctrl-C
 * returns the prompt at once instead of when the server answers the pending poll.
 */
async function resultUnlessDetached(
  handle: WorkflowHandle<typeof goalSession>,
  signal: AbortSignal,
): Promise<GoalSessionResult | null> {
  if (signal.aborted) return null;
  try {
    return await handle.client.withAbortSignal(signal, () => handle.result());
  } catch (error) {
    if (signal.aborted) return null;
    throw error;
  }
}

/**
 * Prints events.jsonl as it grows until the session stops (or Ctrl-C, which only detaches). Events may repeat
 * after a retried activity: printed once each, by seq.
 */
export async function followEvents(
  sessionDir: string,
  format: EventFormat,
  io: Io,
  options: {
    handle?: WorkflowHandle<typeof goalSession>;
    signal: AbortSignal;
    untilStopped: boolean;
    /** Where in events.jsonl to start (default: its beginning), past events already printed. */
    fromOffset?: number;
  },
): Promise<GoalSessionResult | null> {
  const seen = new Set<number>();
  const stopFollowing = new AbortController();
  const onOuterAbort = () => stopFollowing.abort();
  options.signal.addEventListener('abort', onOuterAbort);
  let stopped = false;
  const following = followJsonl(
    sessionPaths(sessionDir).events,
    (event) => {
      if (seen.has(event.seq)) return;
      seen.add(event.seq);
      printEvent(event, format, io);
      if (event.type === 'session_stopped' && options.untilStopped) {
        stopped = true;
        stopFollowing.abort();
      }
    },
    {
      schema: sessionEventSchema,
      signal: stopFollowing.signal,
      pollMs: 100,
      ...(options.fromOffset === undefined ? {} : { fromOffset: options.fromOffset }),
    },
  );
  let result: GoalSessionResult | null = null;
  if (options.handle) {
    let outcome: { r: GoalSessionResult | null };
    try {
      outcome = await Promise.race([
        resultUnlessDetached(options.handle, options.signal).then((r) => ({ r })),
        following.then(() => ({ r: null })),
      ]);
    } catch (error) {
      stopFollowing.abort();
      await following;
      throw error;
    }
    result = outcome.r;
    // The tail can see session_stopped before the workflow's completion arrives; the verdict comes from the latter.
    if (!result && !options.signal.aborted)
      result = await resultUnlessDetached(options.handle, options.signal);
    if (result && !stopped) {
      // The final projection lands just before the workflow completes; give the tail a moment to print it.
      await pollUntil(() => stopped, { timeoutMs: 3000, intervalMs: 50, signal: options.signal });
      stopFollowing.abort();
    }
  }
  await following;
  options.signal.removeEventListener('abort', onOuterAbort);
  return result;
}
