import { mkdirSync, rmSync, statSync } from 'node:fs';
import { isErrno } from '../errors';

const STALE_MS = 30_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Serializes read-modify-write of one file among processes on this machine: `mkdir` is atomic, and a lock
 * older than 30 s belongs to a writer that died, so it is broken rather than waited on forever.
 */
export function withFileLock<T>(file: string, fn: () => T, timeoutMs = 15_000): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) {
        mkdirSync(lock.slice(0, lock.lastIndexOf('/')), { recursive: true });
        continue;
      }
      if (!isErrno(err, 'EEXIST')) throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_MS) rmSync(lock, { recursive: true, force: true });
      } catch {
        // it went away meanwhile
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${lock}`, { cause: err });
      sleepSync(10 + Math.floor(Math.random() * 20));
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
