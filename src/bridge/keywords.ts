import { hasMarker } from './marker';

/** The five execution-control verbs a comment may carry. There is deliberately no reset keyword. */
export const KEYWORD_COMMANDS = ['start', 'pause', 'resume', 'stop', 'cleanup'] as const;
export type KeywordCommand = (typeof KEYWORD_COMMANDS)[number];

const KEYWORD_LINE = /^the-loop\s+(start|pause|resume|stop|cleanup)\s*[.!]?\s*$/i;
const GATE_LINE = /^the-loop\s+(approve|reject)\b\s*(.*)$/i;

/**
 * The lines of a comment that may carry a keyword: outside quotes (`> …`) and code fences, trimmed. A comment
 * carrying the loop-prevention marker has none: the-loop posted it itself.
 */
function* keywordLines(body: string): Generator<string> {
  if (hasMarker(body)) return;
  let fenced = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line.startsWith('>')) continue;
    yield line;
  }
}

/**
 * The control verb a comment carries: a line of its own reading `the-loop <verb>` (case-insensitive, optional
 * trailing punctuation). The first such line wins.
 */
export function parseKeyword(body: string): KeywordCommand | null {
  for (const line of keywordLines(body)) {
    const match = KEYWORD_LINE.exec(line);
    if (match?.[1]) return match[1].toLowerCase() as KeywordCommand;
  }
  return null;
}

export interface GateAnswerKeyword {
  answer: 'approve' | 'reject';
  /** The text after `the-loop reject`; null when none was given (an approve carries none). */
  reason: string | null;
}

/**
 * The answer to a gate a comment carries: a line of its own reading `the-loop approve` or
 * `the-loop reject <reason>`, by the same rules as the control verbs. An approve takes nothing after it but
 * punctuation.
 */
export function parseGateAnswer(body: string): GateAnswerKeyword | null {
  for (const line of keywordLines(body)) {
    const match = GATE_LINE.exec(line);
    if (!match?.[1]) continue;
    const answer = match[1].toLowerCase() as GateAnswerKeyword['answer'];
    const rest = (match[2] ?? '').trim();
    if (answer === 'reject') return { answer, reason: rest === '' ? null : rest };
    if (/^[.!]?$/.test(rest)) return { answer, reason: null };
  }
  return null;
}

/** The labels that answer a gate, as `the-loop approve` and a reasonless `the-loop reject` do. */
export const GATE_LABELS = { 'the-loop:approve': 'approve', 'the-loop:reject': 'reject' } as const;

/** The answer to a gate a label added to the work item carries (case-insensitive), or null for any other label. */
export function gateAnswerOfLabel(label: string | null | undefined): GateAnswerKeyword | null {
  const name = (label ?? '').trim().toLowerCase();
  const answer = (GATE_LABELS as Record<string, 'approve' | 'reject' | undefined>)[name];
  return answer ? { answer, reason: null } : null;
}
