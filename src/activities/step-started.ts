import { Context } from '@temporalio/activity';
import { errorLine } from '../errors';
import { QUEUED_AFTER_MS } from '../workflows/goal-session/queued-after';
import { stepStartedSignal } from '../workflows/goal-session/messages';
import type { StepStartSignal } from '../workflows/goal-session/types';

/**
 * How early, before the workflow's queued timer fires, the signal is sent: room for it to reach the server and for
 * the workflow task that takes it.
 */
const SIGNAL_LEAD_MS = 200;

/** How long after its start a step reports it (0: at once), given its attempt and when the server scheduled it. */
export function startReportDelayMs(attempt: number, scheduledMs: number, nowMs: number): number {
  if (attempt > 1) return 0;
  const waited = Math.max(0, nowMs - scheduledMs);
  return Math.max(0, QUEUED_AFTER_MS - SIGNAL_LEAD_MS - waited);
}

/**
 * Runs a step's work while telling the workflow that a worker's slot took the step, when the workflow asked to be
 * told: a session shown as `queued` shows as running again, and one not yet shown queued never is. The workflow only
 * marks a step queued once it has waited QUEUED_AFTER_MS, so a step that started in time is told just before that,
 * and only if it still runs then: a step shorter than that (a quick turn) sends nothing, sparing the server a signal
 * and the worker a workflow task per turn. A step that started late, or a retry (whose wait the workflow's timer did
 * not measure), tells at once. The server's scheduling time and this machine's clock may differ: a clock behind the
 * server's delays the signal (the session shows queued for at most QUEUED_AFTER_MS), one ahead only sends it sooner.
 *
 * The signal is not awaited, and a lost one costs only the display: the session shows queued until the step ends,
 * when the workflow settles it anyway.
 */
export async function reportingStepStart<T>(
  startSignal: StepStartSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const ctx = Context.current();
  const execution = ctx.info.workflowExecution;
  if (!startSignal || !execution) return work();
  const send = () =>
    void ctx.client.workflow
      .getHandle(execution.workflowId, execution.runId)
      .signal(stepStartedSignal, { step: startSignal.step })
      .catch((error: unknown) => ctx.log.warn(`could not report the step's start: ${errorLine(error)}`));
  const delayMs = startReportDelayMs(
    ctx.info.attempt,
    ctx.info.currentAttemptScheduledTimestampMs,
    Date.now(),
  );
  if (delayMs === 0) {
    send();
    return work();
  }
  const timer = setTimeout(send, delayMs);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
  }
}
