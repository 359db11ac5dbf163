/** Closing marks a question may be wrapped in: markdown emphasis, code, quotes, brackets. */
const CLOSERS = /[\s*_`)"'\]”’»]+$/u;
const MAX_QUESTION = 300;

/**
 * The question a turn's reply ends on, or null: its last paragraph, when that ends with a question mark. Claude then
 * waits at its input box for the answer, which is the session's next event.
 */
export function questionOf(reply: string | null): string | null {
  const last =
    reply
      ?.trim()
      .split(/\n\s*\n/)
      .at(-1)
      ?.trim() ?? '';
  if (!last.replace(CLOSERS, '').endsWith('?')) return null;
  const line = last.replace(/\s+/g, ' ');
  return line.length > MAX_QUESTION ? `…${line.slice(line.length - MAX_QUESTION + 1)}` : line;
}
