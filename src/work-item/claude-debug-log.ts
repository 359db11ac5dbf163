import type { AuthFailure } from '../harness/refused-credential';
import { readRange, sizeOrZero } from './transcript-interruption';

/**
 * A hosted claude writes its debug log (`--debug-file`) at this level: errors only, among them each model call the
 * API refused. Its TUI shows a refused credential only as "API error · Retrying", ten times over about three minutes;
 * the log says which status it was.
 */
export const CLAUDE_DEBUG_LOG_ENV = { CLAUDE_CODE_DEBUG_LOG_LEVEL: 'error' } as const;

/** At most this much of the log is read after a turn's start: a refusal is among its first lines. */
const SCAN_BYTES = 256 * 1024;

// `[ERROR] API error (attempt 1/11): 401 401 {"type":"error","error":{"type":"authentication_error",…}}` (2.1.197)
const REFUSED = /\[ERROR\] API error \(attempt \d+\/\d+\): (401|403)\b[^{\n]*(\{.*\})?/;

/** The first model call refused for its credential in this part of claude's debug log, or null. */
export function authFailureInDebugLog(text: string): AuthFailure | null {
  const match = REFUSED.exec(text);
  if (!match?.[1]) return null;
  let error = 'authentication_failed';
  try {
    const body = JSON.parse(match[2] ?? '') as { error?: { type?: unknown } };
    if (typeof body.error?.type === 'string') error = body.error.type;
  } catch {
    // no body, or not JSON: the status says enough
  }
  return { status: Number(match[1]), error };
}

/** A credential refused since `offset` (the log's size when the turn began), or null. */
export async function authFailureAfter(path: string, offset: number): Promise<AuthFailure | null> {
  const size = await sizeOrZero(path);
  if (size <= offset) return null;
  const text = await readRange(path, offset, Math.min(size, offset + SCAN_BYTES));
  return text === null ? null : authFailureInDebugLog(text);
}
