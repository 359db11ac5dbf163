import type { Stop } from './goal-session-limits';

/** The failure type of a file-system fault in a session's files (src/activities/file-faults.ts). */
export const SESSION_FILE_FAULT = 'SessionFileFault';

/**
 * The stop a failed activity calls for: a file-system fault (a full disk, a read-only or forbidden session directory)
 * that no retry can fix stops the session with its reason; any other failure is a failed turn and the loop goes on.
 * Walks the failure's causes (an ActivityFailure wraps the activity's ApplicationFailure).
 */
export function faultStop(error: unknown): Stop | null {
  for (let cause = error, depth = 0; cause && depth < 8; depth++) {
    const failure = cause as { type?: unknown; message?: unknown; cause?: unknown };
    if (failure.type === SESSION_FILE_FAULT) {
      return {
        kind: 'error',
        reason: typeof failure.message === 'string' ? failure.message : SESSION_FILE_FAULT,
      };
    }
    cause = failure.cause;
  }
  return null;
}
