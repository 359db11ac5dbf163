const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Bounds every duration the-loop accepts: below a second nothing we time makes sense, above a year it is a typo. */
export const DURATION_BOUNDS = { minMs: 1000, maxMs: 366 * 86_400_000 } as const;

export interface DurationBounds {
  minMs: number;
  maxMs: number;
}

/**
 * "90s", "30m", "2h", "1h30m", "500ms" → milliseconds; null when the text is not a duration or lies outside the
 * bounds (a fraction that rounds to nothing — `0.0001s` — is outside, not zero).
 */
export function parseDuration(text: string, bounds: DurationBounds = DURATION_BOUNDS): number | null {
  const trimmed = text.trim();
  if (trimmed.length > 64 || !/^(\d{1,9}(\.\d{1,6})?(ms|s|m|h|d))+$/.test(trimmed)) return null;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  }
  const ms = Math.round(total);
  return ms >= bounds.minMs && ms <= bounds.maxMs ? ms : null;
}

/** The one wording of a rejected duration, shared by the CLI flags and the config file. */
export function durationProblem(text: string, bounds: DurationBounds = DURATION_BOUNDS): string {
  return `'${text}' is not a duration between ${formatBound(bounds.minMs)} and ${formatBound(bounds.maxMs)} (examples: 90s, 30m, 2h, 1h30m)`;
}

export function requireDuration(
  text: string,
  what: string,
  bounds: DurationBounds = DURATION_BOUNDS,
): number {
  const ms = parseDuration(text, bounds);
  if (ms === null) throw new Error(`${what}: ${durationProblem(text, bounds)}`);
  return ms;
}

function formatBound(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
