const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "30m", "2h", "1h30m", "500ms" → milliseconds; null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) return null;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  }
  return total > 0 ? Math.round(total) : null;
}

export function requireDuration(text: string, what: string): number {
  const ms = parseDuration(text);
  if (ms === null) throw new Error(`${what}: '${text}' is not a duration (examples: 90s, 30m, 2h, 1h30m)`);
  return ms;
}
