import { hasMarker } from '../github/marker';

/** The five execution-control verbs a comment may carry. There is deliberately no reset keyword. */
export const KEYWORD_COMMANDS = ['start', 'pause', 'resume', 'stop', 'cleanup'] as const;
export type KeywordCommand = (typeof KEYWORD_COMMANDS)[number];

/** A keyword line starts with `the-loop`, or `/loop` as a bot's slash command is written on GitHub: one meaning. */
const KEYWORD_LINE = /^(?:the-loop|\/loop)\s+(start|pause|resume|stop|cleanup)\s*[.!]?\s*$/i;
const ANSWER_LINE = /^(?:the-loop|\/loop)\s+(approve|reject|allow|deny)\b\s*(.*)$/i;

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

/** A person's answer to what a session waits for: its gate (approve, reject) or its permission prompt (allow, deny). */
export interface AnswerKeyword {
  answer: 'approve' | 'reject' | 'allow' | 'deny';
  /** The text after `the-loop reject` or `the-loop deny`; null when none was given (approve and allow carry none). */
  reason: string | null;
  /** `the-loop allow always`: the prompt's rule goes into the session's allowed tools (as `answer --always`). */
  always?: true;
}

/** The answers to a permission prompt, and to a gate. */
export type PermissionAnswerKeyword = AnswerKeyword & { answer: 'allow' | 'deny' };
export type GateAnswerKeyword = AnswerKeyword & { answer: 'approve' | 'reject' };

/** Does this answer a permission prompt (rather than a gate)? */
export const answersPermission = (
  answer: PermissionAnswerKeyword | GateAnswerKeyword,
): answer is PermissionAnswerKeyword => answer.answer === 'allow' || answer.answer === 'deny';

/**
 * The answer a comment carries: a line of its own reading `the-loop approve`, `the-loop reject <reason>` (a gate),
 * `the-loop allow [always]` or `the-loop deny <reason>` (a permission prompt), by the same rules as the control
 * verbs. Approve and allow take nothing after them but punctuation (allow: or `always`).
 */
export function parseAnswer(body: string): AnswerKeyword | null {
  for (const line of keywordLines(body)) {
    const match = ANSWER_LINE.exec(line);
    if (!match?.[1]) continue;
    const answer = match[1].toLowerCase() as AnswerKeyword['answer'];
    const rest = (match[2] ?? '').trim();
    if (answer === 'reject' || answer === 'deny') return { answer, reason: rest === '' ? null : rest };
    if (/^[.!]?$/.test(rest)) return { answer, reason: null };
    if (answer === 'allow' && /^always[.!]?$/i.test(rest)) return { answer, reason: null, always: true };
  }
  return null;
}

/** The labels that answer a gate, as `the-loop approve` and a reasonless `the-loop reject` do. */
export const GATE_LABELS = { 'the-loop:approve': 'approve', 'the-loop:reject': 'reject' } as const;

/** The answer to a gate a label added to the work item carries (case-insensitive), or null for any other label. */
export function gateAnswerOfLabel(label: string | null | undefined): AnswerKeyword | null {
  const name = (label ?? '').trim().toLowerCase();
  const answer = (GATE_LABELS as Record<string, 'approve' | 'reject' | undefined>)[name];
  return answer ? { answer, reason: null } : null;
}
