import { open, stat } from 'node:fs/promises';

/** What Claude Code writes into the transcript, as a user entry, when a person interrupts a turn (Esc). */
const INTERRUPTED = /^\[Request interrupted by user[^\]]*\]/;
/** A turn's transcript grows with its tool output: only its newest part is read for the marker. */
const SCAN_BYTES = 256 * 1024;

/** The text blocks of a transcript entry's user message. */
function userTexts(entry: unknown): string[] {
  if (typeof entry !== 'object' || entry === null) return [];
  const { type, message } = entry as { type?: unknown; message?: { content?: unknown } };
  if (type !== 'user' || typeof message !== 'object' || message === null) return [];
  const { content } = message;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: { type?: unknown; text?: unknown }) =>
    block?.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
}

/** The interruption marker among these transcript lines (JSONL; a torn first or last line is skipped), or null. */
export function interruptionIn(text: string): string | null {
  for (const line of text.split('\n')) {
    if (!line.includes('[Request interrupted by user')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    for (const block of userTexts(entry)) {
      const marker = INTERRUPTED.exec(block);
      if (marker) return marker[0];
    }
  }
  return null;
}

/**
 * The interruption marker written to the transcript between `offset` (its size when the turn began) and `size` (its
 * size now, from sizeOrZero), or null.
 */
export async function interruptionAfter(path: string, offset: number, size: number): Promise<string | null> {
  if (size <= offset) return null;
  const text = await readRange(path, Math.max(offset, size - SCAN_BYTES), size);
  return text === null ? null : interruptionIn(text);
}

/** The text of a file from byte `start` up to `end` (or less, where the file is shorter); null when it cannot be opened. */
export async function readRange(path: string, start: number, end: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return null; // gone, or not there yet: nothing to tell
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A file's size now (0 when it is not there yet): where a turn that begins now starts in its transcript or log. */
export async function sizeOrZero(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
