import { Context } from '@temporalio/activity';
import { errorLine } from '../errors';
import { stepStartedSignal } from '../workflows/goal-session/messages';
import type { StepStartSignal } from '../workflows/goal-session/types';

/**
 * Tells the workflow that a worker's slot took its step, when the workflow asked to be told: a session shown as
 * `queued` shows as running again. Not awaited, and a lost signal costs only the display: the session shows queued
 * until the step ends, when the workflow settles it anyway.
 */
export function reportStepStarted(startSignal: StepStartSignal | undefined): void {
  const ctx = Context.current();
  const execution = ctx.info.workflowExecution;
  if (!startSignal || !execution) return;
  ctx.client.workflow
    .getHandle(execution.workflowId, execution.runId)
    .signal(stepStartedSignal, { step: startSignal.step })
    .catch((error: unknown) => ctx.log.warn(`could not report the step's start: ${errorLine(error)}`));
}
