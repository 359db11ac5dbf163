import { ApplicationFailure } from '@temporalio/common';
import { SESSION_FILE_FAULT } from '../workflows/goal-session/faults';

/**
 * Faults of the file system itself. A retry finds the disk as full, and the directory as read-only or as forbidden,
 * as before: retried without limit they would hang the session silently, so the session stops and says why.
 */
const FILE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);

function errnoCode(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** A file-system fault as a non-retryable failure naming the code and the path; null for any other error. */
export function fileFault(error: unknown): ApplicationFailure | null {
  const code = errnoCode(error);
  if (code === null || !FILE_FAULTS.has(code)) return null;
  const { path: file, message } = error as NodeJS.ErrnoException;
  // Node's own message ("ENOSPC: no space left on device, open '<path>'"), whichever realm the error comes from.
  const line = (typeof message === 'string' ? message : code).split('\n')[0];
  return ApplicationFailure.create({
    type: SESSION_FILE_FAULT,
    message: `the session's files cannot be written: ${line}`,
    nonRetryable: true,
    details: [{ code, path: file ?? null }],
    cause: error as Error,
  });
}

type AsyncActivities = Record<string, (...args: never[]) => Promise<unknown>>;

/** The same activities, with a file-system fault turned into a SessionFileFault (every other error is unchanged). */
export function withFileFaults<T extends AsyncActivities>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw fileFault(error) ?? error;
      }
    };
  }
  return wrapped as T;
}
