import { errorLine } from '../errors';

/**
 * JSON from outside the process (webhook and Slack bodies, hook reports, agent-written files), bounded before
 * anything recursive touches it. V8's JSON.parse does not recurse, but JSON.stringify, zod and our own walks do:
 * a value nested a few thousand deep throws RangeError (stack overflow) there, far from where it came in. So the
 * raw text is measured first, without recursion, and refused whole when it is too big or too deep.
 */
export interface JsonBounds {
  /** Nesting of arrays and objects: a scalar is 0, `{}` is 1, `{"a":[1]}` is 2. */
  maxDepth: number;
  /** UTF-8 bytes of the text. */
  maxBytes: number;
}

export type JsonProblem = 'too-large' | 'too-deep' | 'not-json';

/** Why a text was refused, as one line naming the limit it broke (or the syntax error) and what to do. */
export class BoundedJsonError extends Error {
  constructor(
    readonly problem: JsonProblem,
    message: string,
  ) {
    super(message);
    this.name = 'BoundedJsonError';
  }
}

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first position where nesting of `[` and `{` outside strings goes past `maxDepth`, or -1 when it never does.
 * One pass, no recursion. A backslash in a string skips the next character, so `"\""` and `"\\"` end where JSON
 * says. On text that is not JSON the count may be off, but JSON.parse refuses such text anyway.
 */
export function depthExceededAt(text: string, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return i;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return -1;
}

/** JSON.parse, refusing first a text over `maxBytes` or nested deeper than `maxDepth`; any failure is a BoundedJsonError. */
export function parseBoundedJson(text: string, bounds: JsonBounds): unknown {
  // a UTF-16 unit is at most 3 UTF-8 bytes: only a text that might be over the cap is measured
  if (text.length * 3 > bounds.maxBytes) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > bounds.maxBytes)
      throw new BoundedJsonError(
        'too-large',
        `JSON is ${bytes} bytes, over the limit of ${bounds.maxBytes}: send a smaller document`,
      );
  }
  const at = depthExceededAt(text, bounds.maxDepth);
  if (at >= 0)
    throw new BoundedJsonError(
      'too-deep',
      `JSON nests deeper than ${bounds.maxDepth} levels (at character ${at}): send a flatter document`,
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BoundedJsonError('not-json', `not valid JSON: ${errorLine(error)}`);
  }
}
