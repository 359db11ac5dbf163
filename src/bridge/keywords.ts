import { hasMarker } from './marker';

/** The five execution-control verbs a comment may carry. There is deliberately no reset keyword. */
export const KEYWORD_COMMANDS = ['start', 'pause', 'resume', 'stop', 'cleanup'] as const;
export type KeywordCommand = (typeof KEYWORD_COMMANDS)[number];

const KEYWORD_LINE = /^the-loop\s+(start|pause|resume|stop|cleanup)\s*[.!]?\s*$/i;

/**
 * The control verb a comment carries: a line of its own reading `the-loop <verb>` (case-insensitive, optional
 * trailing punctuation), outside quotes (`> …`) and code fences. The first such line wins. A comment carrying
 * the loop-prevention marker never counts: the-loop posted it itself.
 */
export function parseKeyword(body: string): KeywordCommand | null {
  if (hasMarker(body)) return null;
  let fenced = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line.startsWith('>')) continue;
    const match = KEYWORD_LINE.exec(line);
    if (match?.[1]) return match[1].toLowerCase() as KeywordCommand;
  }
  return null;
}
