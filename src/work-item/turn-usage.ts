import { readFile } from 'node:fs/promises';
import { pollUntil } from '../process/poll-until';
import { addUsd } from '../pricing/money';
import { costOf, priceOf, type PriceTable, type TokenCounts } from '../pricing/prices';
import type { Usage } from '../session/schemas/usage';

/** A hosted turn's tokens and what they cost, from claude's transcript; `unpriced` names models with no price. */
export interface HostedTurnUsage {
  usage: Usage;
  unpriced: string[];
  /** The turn's last message ended it (it asked for no tool): no more of the turn is to come. */
  complete: boolean;
}

type TranscriptEntry = {
  type?: unknown;
  timestamp?: unknown;
  message?: {
    id?: unknown;
    model?: unknown;
    content?: unknown;
    stop_reason?: unknown;
    usage?: Record<string, unknown>;
  };
};

/**
 * A transcript's entries in the order they happened. claude does not always append them in that order: on a loaded
 * machine the turn's assistant reply has been seen in the file before the prompt it answers. Entries are ordered by
 * their timestamps (stable; one without a timestamp stays after the entry before it).
 */
function inTimeOrder(transcript: string): TranscriptEntry[] {
  const entries: { entry: TranscriptEntry; at: number }[] = [];
  let at = -Infinity;
  for (const line of transcript.split('\n')) {
    let entry: TranscriptEntry;
    try {
      entry = JSON.parse(line) as TranscriptEntry;
    } catch {
      continue;
    }
    const time = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : NaN;
    if (!Number.isNaN(time)) at = time;
    entries.push({ entry, at });
  }
  return entries.sort((a, b) => a.at - b.at).map((e) => e.entry);
}

function tokensOf(u: Record<string, unknown>): TokenCounts {
  const n = (key: string) => (typeof u[key] === 'number' ? u[key] : 0);
  return {
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    cache_read_input_tokens: n('cache_read_input_tokens'),
    cache_creation_input_tokens: n('cache_creation_input_tokens'),
  };
}

/**
 * The usage of the last turn in a claude transcript (JSONL), priced with `prices`: every model message after the last
 * prompt a person (or the-loop) typed — tool results come back as user entries too, and do not start a turn. claude
 * writes one entry per content block of a message (text, then tool_use), each with the whole message's usage: a
 * message counts once, by its id, with its last entry's usage. Null when the transcript holds no usage.
 */
export function lastTurnUsage(transcript: string, prices: PriceTable): HostedTurnUsage | null {
  let messages: Map<string, { model: string; tokens: TokenCounts }> | null = null;
  let unnamed = 0;
  let complete = false;
  for (const entry of inTimeOrder(transcript)) {
    const content = entry.message?.content;
    const toolResult =
      Array.isArray(content) && content.some((b) => (b as { type?: unknown }).type === 'tool_result');
    if (entry.type === 'user' && !toolResult) messages = null;
    const u = entry.message?.usage;
    if (entry.type !== 'assistant' || !u) continue;
    messages ??= new Map();
    const id = typeof entry.message?.id === 'string' ? entry.message.id : `unnamed-${unnamed++}`;
    const model = typeof entry.message?.model === 'string' ? entry.message.model : 'unknown';
    messages.set(id, { model, tokens: tokensOf(u) });
    complete = entry.message?.stop_reason !== 'tool_use';
  }
  if (messages === null) return null;
  const usage: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: 0,
    num_turns: 1,
    duration_ms: 0,
  };
  const unpriced = new Set<string>();
  for (const { model, tokens } of messages.values()) {
    usage.input_tokens += tokens.input_tokens;
    usage.output_tokens += tokens.output_tokens;
    usage.cache_read_input_tokens += tokens.cache_read_input_tokens;
    usage.cache_creation_input_tokens += tokens.cache_creation_input_tokens;
    const price = priceOf(model, prices);
    if (price) usage.cost_usd = addUsd(usage.cost_usd, costOf(tokens, price));
    else unpriced.add(model);
  }
  return { usage, unpriced: [...unpriced], complete };
}

/**
 * claude can write a turn's last transcript entries (even the file of a new conversation) after its Stop hook has
 * run: seen on a loaded machine, by more than 10 s under the stress test's CPU burners. A transcript that is missing
 * or holds no usage for the turn is read again for this long before the turn is recorded without one.
 */
export const TRANSCRIPT_SETTLE_MS = 60_000;

/**
 * The last turn's usage in the transcript at `path`, read again until the turn is complete there or `settleMs` has
 * passed (then what there is, or null).
 */
export async function settledTurnUsage(
  path: string,
  prices: PriceTable,
  settleMs = TRANSCRIPT_SETTLE_MS,
): Promise<HostedTurnUsage | null> {
  let seen: HostedTurnUsage | null = null;
  const read = async () => {
    seen = await readFile(path, 'utf8').then(
      (text) => lastTurnUsage(text, prices),
      () => null,
    );
    return seen?.complete === true;
  };
  await pollUntil(read, { timeoutMs: settleMs, intervalMs: 200 });
  return seen;
}
