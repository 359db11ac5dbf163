import type { HarnessKind } from '../workflows/goal-session/types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** cursor-agent chat ids are UUIDs today; accept any plain token, never one that could read as a flag. */
const PLAIN_TOKEN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

const FORMATS: Record<HarnessKind, { pattern: RegExp; described: string }> = {
  claude: { pattern: UUID, described: 'a UUID (Claude Code session ids are UUIDs)' },
  codex: { pattern: UUID, described: 'a UUID (Codex thread ids are UUIDs)' },
  cursor: { pattern: PLAIN_TOKEN, described: 'a chat id of letters, digits, "-", "_", "." or ":"' },
  command: { pattern: PLAIN_TOKEN, described: 'a token of letters, digits, "-", "_", "." or ":"' },
};

/**
 * Why `id` is not a session id of `harness`, or null when it is. Ids end up on a harness's command line
 * (`--resume=<id>`): one that starts with `-` could smuggle a flag such as --dangerously-skip-permissions.
 */
export function harnessSessionIdProblem(harness: HarnessKind, id: string): string | null {
  const format = FORMATS[harness];
  return format.pattern.test(id) ? null : `'${id}' is not ${format.described}`;
}
