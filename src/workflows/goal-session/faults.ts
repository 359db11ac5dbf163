import { RetryState } from '@temporalio/common';
import type { BlockedDispatch, SessionStateFile } from '../../session/schemas/state';
import type { Stop } from './limits';
import { deniedDetail } from '../../session/goal-waiting';

/** The failure type of a file-system fault in a session's files (src/activities/file-faults.ts). */
export const SESSION_FILE_FAULT = 'SessionFileFault';

/** A file-system fault as the workflow sees it in an activity's failure. */
export interface FileFault {
  reason: string;
  path: string | null;
  code: string | null;
}

/**
 * The file-system fault (a full disk, a read-only or forbidden session directory) inside a failed activity's
 * failure, or null for any other failure. Walks the failure's causes (an ActivityFailure wraps the activity's
 * ApplicationFailure, whose details name the code and the path).
 */
export function fileFaultOf(error: unknown): FileFault | null {
  for (let cause = error, depth = 0; cause && depth < 8; depth++) {
    const failure = cause as { type?: unknown; message?: unknown; cause?: unknown; details?: unknown };
    if (failure.type === SESSION_FILE_FAULT) {
      const detail = (Array.isArray(failure.details) ? failure.details[0] : null) as {
        code?: unknown;
        path?: unknown;
      } | null;
      return {
        reason: typeof failure.message === 'string' ? failure.message : SESSION_FILE_FAULT,
        path: typeof detail?.path === 'string' ? detail.path : null,
        code: typeof detail?.code === 'string' ? detail.code : null,
      };
    }
    cause = failure.cause;
  }
  return null;
}

/**
 * What keeps a file write of the session from landing: a file fault, or a short file activity (a projection) that
 * failed every attempt its retry policy allows (goal-session/activities.ts). Null for any other failure.
 */
export function fileWriteFailureOf(error: unknown): FileFault | null {
  const fault = fileFaultOf(error);
  if (fault) return fault;
  const failure = error as { retryState?: unknown; cause?: { message?: unknown } } | null;
  if (failure?.retryState !== RetryState.MAXIMUM_ATTEMPTS_REACHED) return null;
  const why = typeof failure.cause?.message === 'string' ? failure.cause.message : 'unknown error';
  return {
    reason: `the session's files could not be written, attempts exhausted: ${why}`,
    path: null,
    code: null,
  };
}

/**
 * The stop a file fault calls for where the session cannot pause for it: its directory cannot be set up at all,
 * its final state cannot be written, or (in sessions of an older build) anywhere. Null for any other failure.
 */
export function faultStop(error: unknown): Stop | null {
  const fault = fileFaultOf(error);
  return fault ? { kind: 'error', reason: fault.reason } : null;
}

/**
 * A file fault pauses the session with its reason: `dispatch` becomes paused and blocked (`iteration`: the turn to
 * dispatch again on resume; null: none was running). Returns the session_blocked event's fields.
 */
export function blockDispatch(
  dispatch: Pick<SessionStateFile['dispatch'], 'paused' | 'blocked'>,
  fault: FileFault,
  iteration: number | null,
  at: string,
): { iteration?: number; data: Record<string, unknown> } {
  dispatch.paused = true;
  dispatch.blocked = { reason: fault.reason, path: fault.path, code: fault.code, iteration, at };
  return {
    ...(iteration === null ? {} : { iteration }),
    data: { reason: fault.reason, path: fault.path, code: fault.code },
  };
}

/** The blocked session's line in the Web UI's current details (and `loopy status`): what failed, where, what to do. */
export function blockedDetails(blocked: BlockedDispatch): string {
  const where = blocked.path ? ` (${blocked.path})` : '';
  const turn = blocked.iteration === null ? '' : `; iteration ${blocked.iteration} waits`;
  return `blocked: ${blocked.reason}${where}${turn} — fix it, then run loopy resume`;
}

/** A paused session's current details: why it is blocked, or after which iteration its user paused it. */
export function pausedDetails(state: Pick<SessionStateFile, 'iteration' | 'dispatch'>): string {
  const { blocked, asked, budget, denied } = state.dispatch;
  if (blocked) return blockedDetails(blocked);
  if (budget) return `waiting: budget — ${budget.detail}`;
  if (denied) return `waiting: permission — ${deniedDetail(denied)}`;
  if (asked) return `waiting for an answer: ${asked.question} — loopy update <answer>, or loopy resume`;
  return `paused after iteration ${state.iteration}`;
}
