/** A Claude Code session id (a UUID, as the CLI requires) that still reads as the test's own number. */
export function claudeSessionId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}
