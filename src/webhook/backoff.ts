export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/**
 * From 0.25 s, doubling to 30 s: a short outage of Temporal or GitHub costs a delivery well under a second, a long
 * one an attempt every half minute or so.
 */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, maxMs: 30_000 };

/**
 * The wait before the next attempt after `failures` failures in a row: the capped exponential delay, half of it
 * fixed and half random ("equal jitter"), so that it always backs off and deliveries that failed together do not
 * come back together.
 */
export function backoffDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  const capped = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
  return Math.round(capped / 2 + (random() * capped) / 2);
}
