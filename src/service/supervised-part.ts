import { consecutiveRestarts, restartDelayMs } from './restart-backoff';
import type { SupervisedPart } from './supervisor-file';

/** What one look at a part found, for the supervisor's log. */
export type PartChange =
  | { kind: 'seen'; pid: number }
  | { kind: 'exited'; pid: number; restartInMs: number; consecutive: number }
  | { kind: 'back'; pid: number }
  | null;

const fresh = (pid: number): SupervisedPart => ({
  pid,
  restarts: 0,
  consecutive: 0,
  exitedAt: null,
  exitedPid: null,
  lastRestartAt: null,
  nextRestartAt: null,
  lastError: null,
});

/**
 * One look at a part: `running` is the process that serves it now (null: none), and its command. A part is watched
 * from the first time it is seen running as the service runs it in the background; `dev` runs in a terminal, and a
 * person who ends it means it (so it is never restarted). A watched part that is gone gets a restart time.
 */
export function observePart(
  part: SupervisedPart | undefined,
  running: { pid: number; command: string } | null,
  now: number,
): { part: SupervisedPart | undefined; change: PartChange } {
  if (running !== null) {
    if (running.command === 'dev') return { part: undefined, change: null };
    if (part === undefined) return { part: fresh(running.pid), change: { kind: 'seen', pid: running.pid } };
    if (part.pid === running.pid) return { part, change: null };
    // back without this supervisor's restart (a `start` got there first), or a new process replaced it
    const back = part.nextRestartAt !== null;
    return {
      part: { ...part, pid: running.pid, nextRestartAt: null, lastError: null },
      change: back ? { kind: 'back', pid: running.pid } : { kind: 'seen', pid: running.pid },
    };
  }
  if (part === undefined || part.pid === null) return { part, change: null };
  const consecutive = consecutiveRestarts(part, now);
  const restartInMs = restartDelayMs(consecutive);
  return {
    part: {
      ...part,
      pid: null,
      consecutive,
      exitedAt: new Date(now).toISOString(),
      exitedPid: part.pid,
      nextRestartAt: new Date(now + restartInMs).toISOString(),
    },
    change: { kind: 'exited', pid: part.pid, restartInMs, consecutive },
  };
}

/** A part this look should restart: down, with its backoff passed. */
export function restartDue(part: SupervisedPart | undefined, now: number): boolean {
  return part?.pid === null && part.nextRestartAt !== null && Date.parse(part.nextRestartAt) <= now;
}

/** After a restart that brought the part back as `pid`. */
export function restarted(part: SupervisedPart, pid: number, now: number): SupervisedPart {
  return {
    ...part,
    pid,
    restarts: part.restarts + 1,
    lastRestartAt: new Date(now).toISOString(),
    nextRestartAt: null,
    lastError: null,
  };
}

/** After a restart that failed: the next one waits longer. */
export function restartFailed(part: SupervisedPart, error: string, now: number): SupervisedPart {
  const consecutive = part.consecutive + 1;
  return {
    ...part,
    consecutive,
    lastRestartAt: new Date(now).toISOString(),
    nextRestartAt: new Date(now + restartDelayMs(consecutive)).toISOString(),
    lastError: error,
  };
}
