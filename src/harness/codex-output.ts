import type { Usage } from '../session/schemas/usage';
import { emptyUsage } from '../session/usage-math';
import { codexTokens } from './codex-model';
import { AUTH_STATUSES, type AuthFailure } from './refused-credential';

export interface CodexEvents {
  threadId: string | null;
  usage: Usage | null;
  lastAgentMessage: string | null;
  failure: string | null;
}

/**
 * Reads `codex exec --json` JSONL leniently: the event vocabulary has changed between releases, so
 * unknown events and lines are ignored and only the well-known ones are used (thread.started,
 * turn.completed/turn.failed with usage, item.completed agent messages, error).
 */
export function parseCodexEvents(stdout: string): CodexEvents {
  const events: CodexEvents = { threadId: null, usage: null, lastAgentMessage: null, failure: null };
  for (const line of stdout.split('\n')) {
    const event = parseObject(line);
    if (!event) continue;
    const type = event['type'];
    if (type === 'thread.started' && typeof event['thread_id'] === 'string')
      events.threadId = event['thread_id'];
    if (type === 'turn.completed' || type === 'turn.failed') addTurnUsage(events, asObject(event['usage']));
    if (type === 'turn.failed') events.failure = errorMessage(event['error']) ?? 'turn failed';
    if (type === 'error') events.failure = errorMessage(event) ?? 'error';
    if (type === 'item.completed') {
      const item = asObject(event['item']);
      const itemType = item?.['type'] ?? item?.['item_type'];
      if (itemType === 'agent_message' && typeof item?.['text'] === 'string')
        events.lastAgentMessage = item['text'];
    }
  }
  return events;
}

/**
 * turn.completed usage is cumulative over the thread (codex 0.171): the last one is the thread's total so far. A
 * turn.failed reports none: the total stays as it was (null when no turn reported one).
 */
function addTurnUsage(events: CodexEvents, usage: Record<string, unknown> | null): void {
  if (!usage) return;
  events.usage = { ...emptyUsage(), ...codexTokens(usage), num_turns: 1 };
}

function errorMessage(value: unknown): string | null {
  const obj = asObject(value);
  return typeof obj?.['message'] === 'string' ? obj['message'] : null;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function parseObject(line: string): Record<string, unknown> | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    return asObject(JSON.parse(trimmed));
  } catch {
    return null;
  }
}

// `{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: Incorrect API key provided, url:
// http://…/v1/responses)"}`, then the same without "Reconnecting" in `error` and `turn.failed` (codex 0.171)
const REFUSED = /unexpected status (\d{3})\b[^:]*: (.*?)(?:, url: [^)]*)?\)?$/;

/** What every line codexAuthFailureOf takes carries (firstRefusal parses only those). */
export const CODEX_REFUSAL_MENTION = 'unexpected status';

/** A model call refused for its credential, from one `codex exec --json` line; null for any other line. */
export function codexAuthFailureOf(line: unknown): AuthFailure | null {
  const event = asObject(line);
  const message =
    event?.['type'] === 'error'
      ? errorMessage(event)
      : event?.['type'] === 'turn.failed'
        ? errorMessage(event['error'])
        : null;
  const match = message ? REFUSED.exec(message) : null;
  const status = Number(match?.[1]);
  if (!match || !AUTH_STATUSES.includes(status)) return null;
  return { status, error: match[2] ?? 'unauthorized' };
}

/**
 * Which credential codex was given: `CODEX_API_KEY` (which `codex exec` reads first) or `OPENAI_API_KEY`; a provider
 * of its own in config.toml names its variable there (`env_key`).
 */
export function codexCredentialName(env: NodeJS.ProcessEnv): string {
  if (env['CODEX_API_KEY']) return 'CODEX_API_KEY';
  return "OPENAI_API_KEY (or the env_key of codex's model provider)";
}
