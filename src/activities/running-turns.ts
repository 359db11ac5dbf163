/**
 * The harness turns this worker process runs, by session directory and iteration. A stop reaches a running turn
 * through here at once (the workflow's stopRunningTurn activity), where Temporal's cancellation reaches it only
 * with a heartbeat's reply, which comes as seldom as the turn heartbeats.
 */
const running = new Map<string, AbortController>();

const key = (sessionDir: string, iteration: number) => `${sessionDir}\n${iteration}`;

/** A running turn's own stop switch, released when the turn ends. */
export function registerTurn(
  sessionDir: string,
  iteration: number,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const at = key(sessionDir, iteration);
  running.set(at, controller);
  return {
    signal: controller.signal,
    release: () => {
      if (running.get(at) === controller) running.delete(at);
    },
  };
}

/** Stops the turn if this process runs it; false when it does not (another worker's, or already over). */
export function stopTurn(sessionDir: string, iteration: number): boolean {
  const controller = running.get(key(sessionDir, iteration));
  if (!controller) return false;
  controller.abort();
  return true;
}

/** The shortest heartbeat interval: a turn's first heartbeats, and any after its details change. */
export const HEARTBEAT_MIN_MS = 1000;
/** Without a heartbeat timeout, the longest interval; with one, a third of it, up to HEARTBEAT_MAX_MS. */
const HEARTBEAT_DEFAULT_MAX_MS = 10_000;
const HEARTBEAT_MAX_MS = 60_000;

/**
 * The next heartbeat interval of a turn. Each heartbeat is a server write: while nothing changes, the interval
 * doubles, up to a third of the heartbeat timeout (so two may be lost before the server gives up on the worker), and
 * at most a minute: 10 s with the default 30 s timeout, 40 s with the 2 minutes docs/operations.md advises for
 * thousands of live turns on a host, where the default's heartbeats alone keep a server busy. What it costs is the
 * delay of a cancellation that only a heartbeat's reply brings (a cancellation through Temporal, or a superseded
 * attempt); a stop reaches the turn through stopTurn instead.
 */
export function nextHeartbeatMs(previousMs: number, changed: boolean, heartbeatTimeoutMs?: number): number {
  const longest =
    heartbeatTimeoutMs === undefined
      ? HEARTBEAT_DEFAULT_MAX_MS
      : Math.min(HEARTBEAT_MAX_MS, heartbeatTimeoutMs / 3);
  const cap = Math.max(HEARTBEAT_MIN_MS, longest);
  return changed ? HEARTBEAT_MIN_MS : Math.min(cap, previousMs * 2);
}
