import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** A holder refreshes its lock every STALE_MS / 2; one untouched for 30 s belongs to a writer that died. */
const STALE_MS = 30_000;

/**
 * Serializes read-modify-write of one file among processes on this machine (`<file>.lock`, an atomic mkdir,
 * through proper-lockfile). Waiting for a held lock yields to the event loop; it gives up after about 15 s.
 */
export async function withFileLock<T>(file: string, fn: () => T | Promise<T>): Promise<T> {
  mkdirSync(dirname(file), { recursive: true });
  // Loaded on the first lock: commands that only read the registry (sessions list) never load it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { lock } = require('proper-lockfile') as typeof import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lock(file, {
      realpath: false,
      stale: STALE_MS,
      retries: { retries: 600, factor: 1, minTimeout: 10, maxTimeout: 30, randomize: true },
      // Losing the lock to a stale-breaker mid-write is survivable (the write itself is atomic); crashing is not.
      onCompromised: () => undefined,
    });
  } catch (err) {
    throw new Error(`timed out waiting for the lock ${file}.lock`, { cause: err });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
