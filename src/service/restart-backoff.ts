/**
 * When the supervisor restarts a part of the service that exited: after 1 s, then 2 s, 4 s … up to a minute while it
 * keeps exiting, so that a part that cannot start (a bad config, a full disk) costs a log line a minute rather than
 * a busy loop. A part that then stays up for five minutes is healthy again, and its next exit waits 1 s.
 */
export interface RestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  healthyAfterMs: number;
}

export const RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 1_000,
  maxDelayMs: 60_000,
  healthyAfterMs: 5 * 60_000,
};

/** The delay before a restart that follows `consecutive` restarts without a healthy run between them. */
export function restartDelayMs(consecutive: number, policy: RestartPolicy = RESTART_POLICY): number {
  const doubled = policy.firstDelayMs * 2 ** Math.min(consecutive, 30);
  return Math.min(doubled, policy.maxDelayMs);
}

/**
 * How many restarts in a row precede the one about to happen: none when the part ran for healthyAfterMs since its
 * last restart (or was never restarted), else one more than before.
 */
export function consecutiveRestarts(
  previous: { consecutive: number; lastRestartAt: string | null },
  exitSeenAt: number,
  policy: RestartPolicy = RESTART_POLICY,
): number {
  if (previous.lastRestartAt === null) return 0;
  const ranFor = exitSeenAt - Date.parse(previous.lastRestartAt);
  return ranFor >= policy.healthyAfterMs ? 0 : previous.consecutive + 1;
}
