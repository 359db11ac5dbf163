// How a failure leaves an update handler. Workflow code: no Node built-ins.
import { ApplicationFailure, rootCause, TemporalFailure } from '@temporalio/common';

/** The innermost message of a failure (an activity's own error, not "Activity task failed"). */
export function causeMessage(error: unknown): string {
  return rootCause(error) ?? String(error);
}

/**
 * An update fails with a readable message rather than failing the workflow task: the root cause's message, typed
 * as the activity's own error type when it has one (so a caller can tell bad input from a host failure).
 */
export function asUpdateFailure(error: unknown, type = 'WorkItemError'): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  let root: unknown = error;
  while (root instanceof TemporalFailure && root.cause) root = root.cause;
  const kind = root instanceof ApplicationFailure && root.type ? root.type : type;
  return ApplicationFailure.nonRetryable(causeMessage(error), kind);
}
