import { readFile } from 'node:fs/promises';
import { pollUntil } from '../process/poll-until';

const SUMMARY_CHARS = 200;
/**
 * claude can write a turn's last transcript entries (even the file of a new conversation) after its Stop hook has
 * run: seen on a loaded machine, by more than 10 s under the stress test's CPU burners. A transcript that is missing
 * or holds no usage for the turn is read again for this long before the line goes out without a cost. The line is
 * never awaited by anything else.
 */
const TRANSCRIPT_SETTLE_MS = 60_000;

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The first non-empty line of a reply, cut to a chat line's length. */
export function summaryOf(reply: string | null): string {
  const line =
    (reply ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  if (line === '') return '(no text reply)';
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

type TranscriptEntry = {
  type?: unknown;
  timestamp?: unknown;
  message?: { content?: unknown; usage?: Record<string, unknown> };
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

/**
 * The tokens of the last turn in a claude transcript (JSONL): every assistant message after the last prompt a
 * person (or the-loop) typed — tool results come back as user entries too, and do not start a turn. Input counts
 * cache reads and writes. Null when the transcript holds no usage.
 */
export function lastTurnUsage(transcript: string): TurnUsage | null {
  let usage: TurnUsage | null = null;
  for (const entry of inTimeOrder(transcript)) {
    const content = entry.message?.content;
    const toolResult =
      Array.isArray(content) && content.some((b) => (b as { type?: unknown }).type === 'tool_result');
    if (entry.type === 'user' && !toolResult) usage = null;
    const u = entry.message?.usage;
    if (entry.type !== 'assistant' || !u) continue;
    const n = (key: string) => (typeof u[key] === 'number' ? u[key] : 0);
    usage ??= { inputTokens: 0, outputTokens: 0 };
    usage.inputTokens += n('input_tokens') + n('cache_read_input_tokens') + n('cache_creation_input_tokens');
    usage.outputTokens += n('output_tokens');
  }
  return usage;
}

/** What a turn says in the work item's thread: its one-line summary and what it cost, or why it failed. */
export async function turnLine(
  iteration: number,
  outcome: { reply: string | null; transcript?: string | null } | { error: string } | { interrupted: string },
  settleMs = TRANSCRIPT_SETTLE_MS,
): Promise<string> {
  if ('error' in outcome) return `turn ${iteration} failed: ${summaryOf(outcome.error)}`;
  if ('interrupted' in outcome) return `turn ${iteration} interrupted in the terminal`;
  let usage: TurnUsage | null = null;
  const { transcript } = outcome;
  if (transcript) {
    // settled: the turn's usage is there (a missing file may only be late)
    const read = () =>
      readFile(transcript, 'utf8').then(
        (text) => lastTurnUsage(text),
        () => null,
      );
    usage = (await pollUntil(read, { timeoutMs: settleMs, intervalMs: 200 })) ?? null;
  }
  const cost = usage
    ? ` — cost: ${usage.inputTokens.toLocaleString('en-US')} tokens in, ${usage.outputTokens.toLocaleString('en-US')} out`
    : '';
  return `turn ${iteration}: ${summaryOf(outcome.reply)}${cost}`;
}
