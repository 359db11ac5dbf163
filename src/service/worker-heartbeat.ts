import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { errorLine } from '../errors';
import type { MessageLog } from '../log/message-log';
import { servicePaths } from './service-processes';

/**
 * How often a service worker rewrites `worker.heartbeat` (its pid) in the state directory, from its event loop: a
 * worker that is stopped (SIGSTOP, Ctrl-Z) or whose event loop is stuck stops rewriting it, while /proc still shows
 * it alive. Every 2 s: one tiny write and a rename, nothing next to a turn's cost, and `status` can call a worker
 * unresponsive (UNRESPONSIVE_AFTER_MS, five missed beats) within seconds without a loaded machine's late timers
 * making it flap.
 */
export const HEARTBEAT_PERIOD_MS = 2_000;

/** What the heartbeat file says: whose it is, and whether that worker is still starting (bundling its workflows). */
export interface HeartbeatFile {
  pid: number;
  starting: boolean;
}

/** `<pid>` or `<pid> starting`; null for a missing or foreign file. */
export async function readHeartbeat(file: string): Promise<HeartbeatFile | null> {
  try {
    const match = /^(\d+)( starting)?\n?$/.exec(await readFile(file, 'utf8'));
    return match ? { pid: Number(match[1]), starting: match[2] !== undefined } : null;
  } catch {
    return null;
  }
}

export interface WorkerHeartbeat {
  /** The worker is up: its beats no longer say `starting`. */
  ready(): void;
  /** Stops beating and removes the file (when it is still this worker's). */
  stop(): Promise<void>;
}

/**
 * Starts rewriting this state directory's heartbeat file with `pid`, once now (awaited) and then every
 * HEARTBEAT_PERIOD_MS, marked `starting` until ready() is called: bundling the workflows can hold the event loop for
 * many seconds on a loaded machine, and a starting worker is given longer (worker-liveness.ts). Each beat rewrites
 * the whole file (temp file, rename) rather than touching it, so a file removed or overwritten meanwhile is right
 * again at the next beat.
 */
export async function startHeartbeat(
  stateDir: string,
  logger: MessageLog,
  pid = process.pid,
): Promise<WorkerHeartbeat> {
  const file = servicePaths(stateDir).workerHeartbeat;
  const temp = `${file}.${pid}.tmp`;
  let starting = true;
  const beat = async () => {
    await writeFile(temp, `${pid}${starting ? ' starting' : ''}\n`);
    await rename(temp, file);
  };
  await beat();
  let inFlight: Promise<void> | null = null;
  let warned = false;
  const timer = setInterval(() => {
    // A beat still writing (a slow disk) is not queued behind: the next one comes soon enough.
    if (inFlight) return;
    inFlight = beat()
      .catch((error: unknown) => {
        // Once: a failing disk would otherwise fill the log every two seconds.
        if (!warned) logger.warn(`the worker heartbeat ${file} was not written: ${errorLine(error)}`);
        warned = true;
      })
      .finally(() => (inFlight = null));
  }, HEARTBEAT_PERIOD_MS);
  // The heartbeat never keeps the process alive by itself.
  timer.unref();
  return {
    ready() {
      starting = false;
    },
    async stop() {
      clearInterval(timer);
      await inFlight;
      if ((await readHeartbeat(file))?.pid === pid) await rm(file, { force: true });
      await rm(temp, { force: true });
    },
  };
}
