import { stat } from 'node:fs/promises';
import { HEARTBEAT_PERIOD_MS, readHeartbeat } from './worker-heartbeat';
import { processStartedAt, type ProcessFacts } from './process-facts';
import { servicePaths } from './service-processes';

/**
 * A worker whose heartbeat is older than this does not answer: five missed beats, so that a loaded machine's late
 * timers or a long garbage collection never make a live worker look dead, while a stopped one shows within seconds.
 */
export const UNRESPONSIVE_AFTER_MS = 5 * HEARTBEAT_PERIOD_MS;

/**
 * The same for a worker whose last beat said it was starting: webpack bundling the workflows holds its event loop,
 * on a loaded machine for tens of seconds, and such a worker is slow, not dead.
 */
export const STARTING_UNRESPONSIVE_AFTER_MS = 120_000;

/** A live process that does not answer as a worker. */
export interface Silence {
  /** Its last heartbeat (ISO time); its start, when it never wrote one. */
  since: string;
  /** /proc says it is stopped (SIGSTOP, Ctrl-Z, a debugger): SIGCONT resumes it. */
  stopped: boolean;
}

/**
 * When the worker `facts` names last answered: its last heartbeat, else its start; null when neither is known.
 * `starting`: its last beat said it was still starting.
 */
async function lastAnswer(
  stateDir: string,
  facts: ProcessFacts,
): Promise<{ at: number | null; starting: boolean }> {
  const file = servicePaths(stateDir).workerHeartbeat;
  const heartbeat = await readHeartbeat(file);
  if (heartbeat?.pid === facts.pid) {
    try {
      return { at: (await stat(file)).mtimeMs, starting: heartbeat.starting };
    } catch {
      // rewritten or removed between the two reads: its start decides, as for a worker that never beat
    }
  }
  return { at: await processStartedAt(facts), starting: false };
}

/**
 * Null when the worker process `facts` answers (a heartbeat within UNRESPONSIVE_AFTER_MS, or within
 * STARTING_UNRESPONSIVE_AFTER_MS of a beat that said starting, or it started that recently: it may not have reached
 * its first beat), else since when it has not. Without /proc and without a heartbeat nothing is known, and it counts
 * as answering, as it did before heartbeats.
 */
export async function workerSilence(
  stateDir: string,
  facts: ProcessFacts,
  now = Date.now(),
): Promise<Silence | null> {
  const last = await lastAnswer(stateDir, facts);
  const after = last.starting ? STARTING_UNRESPONSIVE_AFTER_MS : UNRESPONSIVE_AFTER_MS;
  if (last.at === null || now - last.at <= after) return null;
  return { since: new Date(last.at).toISOString(), stopped: facts.state === 'T' || facts.state === 't' };
}
