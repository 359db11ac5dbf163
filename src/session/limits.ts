/**
 * Size caps on text that flows from users and agents into prompts, the workflow history and tmux panes. Temporal
 * refuses payloads over 2 MB and a history over 50 MB; a prompt of megabytes costs real money every turn.
 */
export const SIZE_LIMITS = {
  /** `--goal` / `--goal-file`: refused above this (exit 2). */
  goalBytes: 100 * 1024,
  /** `updates_from_user.md`: the newest text beyond this is cut off with a marker, never dropped silently. */
  userUpdatesBytes: 64 * 1024,
  /** A `child_requests/*.json` file: refused above this (the request is rejected with the reason). */
  childRequestBytes: 64 * 1024,
  /** A comment, review or Slack reply delivered into a session: cut off with a marker above this. */
  deliveredEventBytes: 32 * 1024,
} as const;

/** Cuts `text` to at most `maxBytes` UTF-8 bytes (never inside a character) and says how much was left out. */
export function truncateWithMarker(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return text;
  const marker = `\n[… ${bytes - maxBytes} more bytes cut by the-loop: the text was over ${maxBytes} bytes]`;
  const budget = Math.max(0, maxBytes - Buffer.byteLength(marker, 'utf8'));
  let cut = Buffer.from(text, 'utf8').subarray(0, budget).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + marker;
}
