export interface PollOptions {
  /** Milliseconds, or a deadline that decides by itself (a LoadScaledDeadline: a start-up on a busy machine). */
  timeoutMs: number | { expired(): boolean };
  intervalMs: number;
  /** Stops waiting early (the result is then undefined, as on a timeout). */
  signal?: AbortSignal;
}

type Found<T> = Exclude<T, false | null | undefined>;

/**
 * Asks `condition` until it answers something other than false, null or undefined, and returns that answer;
 * undefined once `timeoutMs` has passed (or `signal` aborted). The condition is always asked at least once, and
 * once more at the deadline, so a short timeout still sees a state that arrived while it slept. A condition that
 * throws ends the wait with its error.
 */
export async function pollUntil<T>(
  condition: () => T | Promise<T>,
  options: PollOptions,
): Promise<Found<T> | undefined> {
  const { timeoutMs } = options;
  const deadline = typeof timeoutMs === 'number' ? Date.now() + timeoutMs : null;
  for (;;) {
    const answer = await condition();
    if (answer !== false && answer !== null && answer !== undefined) return answer as Found<T>;
    const left = deadline === null ? options.intervalMs : deadline - Date.now();
    if (left <= 0 || options.signal?.aborted) return undefined;
    if (typeof timeoutMs !== 'number' && timeoutMs.expired()) return undefined;
    await sleep(Math.min(options.intervalMs, left), options.signal);
  }
}

/** A timer that an abort cuts short. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
