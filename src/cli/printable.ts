// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character — C0, DEL and C1 — written as an escape (`\n`, `\x1b`, `\x9b`): what a user
 * typed or a file held is echoed into messages, and a raw newline would split a one-line error while an ESC would
 * drive the terminal (colours, cursor moves, a changed window title).
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
