import { mkdir } from 'node:fs/promises';
import { lock } from 'proper-lockfile';
import { CliError } from '../errors';
import type { Logger } from '../log/logger';
import { servicePaths } from './service-processes';

/** Longer than a whole start: the server, the worker and the receiver each get their own start-up bound. */
const WAIT_MS = 300_000;
const RETRY_MS = 250;

/**
 * Runs `fn` holding the state directory's service lock, so that concurrent `start`, `loopy run`, `dev` and `stop`
 * calls act one after the other: the second sees what the first started instead of starting its own. A holder
 * that died leaves a lock that goes stale (its mtime is no longer refreshed) and is taken over.
 */
export async function withServiceLock<T>(stateDir: string, logger: Logger, fn: () => Promise<T>): Promise<T> {
  await mkdir(stateDir, { recursive: true });
  const lockfilePath = servicePaths(stateDir).startLock;
  const options = {
    lockfilePath,
    stale: 20_000,
    update: 5_000,
    realpath: false,
    onCompromised: (error: Error) =>
      logger.error(`the service lock ${lockfilePath} was lost: ${error.message}`),
  };
  let release: () => Promise<void>;
  try {
    release = await lock(stateDir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    logger.info(
      `another the-loop process is starting or stopping the service in ${stateDir}; waiting for it`,
    );
    try {
      release = await lock(stateDir, {
        ...options,
        retries: {
          retries: Math.ceil(WAIT_MS / RETRY_MS),
          factor: 1,
          minTimeout: RETRY_MS,
          maxTimeout: RETRY_MS,
        },
      });
    } catch {
      throw new CliError(
        `another the-loop process held the service lock ${lockfilePath} for over ${WAIT_MS / 1000} s — is a start hanging?`,
      );
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
