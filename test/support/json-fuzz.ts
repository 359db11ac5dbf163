import { parseBoundedJson, type BoundedJsonError } from '../../src/json/bounded-json';

/**
 * Structure-aware JSON fuzzing for the entry points that read JSON from outside: documents built from a real
 * payload and bent in the ways an attacker or a torn write would (deep nesting, huge strings, escapes and
 * brackets inside strings, truncation, wrong types in known fields). Seeded, so a failure replays.
 */

/** Park–Miller (multiplier 16807): a seeded PRNG in [0, 1). */
export function seeded(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

export type Rand = () => number;

const int = (rand: Rand, n: number) => Math.floor(rand() * n);
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[int(rand, xs.length)] as T;

/** Depths around every limit in use (8, 16, 64, 65) and far past them (the stack overflows at a few thousand). */
const DEPTHS = [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 66, 100, 1000, 5000, 20000];

/** `inner` wrapped `depth` times in arrays, objects or a mix of both. */
function nested(rand: Rand, depth: number, inner: string): string {
  const style = int(rand, 3);
  const opens: string[] = [];
  const closes: string[] = [];
  for (let i = 0; i < depth; i++) {
    const object = style === 0 || (style === 2 && rand() < 0.5);
    opens.push(object ? '{"k":' : '[');
    closes.push(object ? '}' : ']');
  }
  return `${opens.join('')}${inner}${closes.reverse().join('')}`;
}

/** Strings that trip a naive bracket counter or a UTF-8 length check. */
const TRICKY_STRINGS = [
  '"[[[[{{{{"',
  '"\\"[{"',
  '"\\\\"',
  '"\\\\\\"]]]"',
  '"\\u005b\\u007b"',
  '"\\ud83d\\ude00"',
  '"\\ud800"',
  '"\\u0000"',
  '"é😀"',
  '"\u2028\u2029"',
];

function scalar(rand: Rand): string {
  return pick(rand, [
    'null',
    'true',
    'false',
    '0',
    '-1.5e300',
    '1e999',
    String(int(rand, 1e9)),
    ...TRICKY_STRINGS,
  ]);
}

/** A JSON value of the wrong type for whatever field it replaces. */
function wrongType(rand: Rand): unknown {
  return pick(rand, [null, 42, -1, 'str', '', [], [1, 2], {}, { nested: { x: [true] } }, true, 1e308]);
}

/** `value` with one field (at any depth) replaced by a value of another type. */
function withWrongType(rand: Rand, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  let node = copy;
  for (let step = 0; step < 6; step++) {
    if (node === null || typeof node !== 'object') break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = pick(rand, keys);
    const record = node as Record<string, unknown>;
    if (rand() < 0.35 || typeof record[key] !== 'object' || record[key] === null) {
      record[key] = wrongType(rand);
      return copy;
    }
    node = record[key];
  }
  return wrongType(rand);
}

/** `text` with a few characters that matter to JSON inserted, deleted or replaced. */
function mutated(rand: Rand, text: string): string {
  let out = text;
  for (let n = 1 + int(rand, 4); n > 0; n--) {
    const at = int(rand, out.length + 1);
    const c = pick(rand, ['[', ']', '{', '}', '"', '\\', ',', ':', '\\u', '\u0000', 'é', '😀']);
    const how = int(rand, 3);
    out =
      how === 0
        ? out.slice(0, at) + c + out.slice(at)
        : out.slice(0, at) + (how === 1 ? '' : c) + out.slice(at + 1);
  }
  return out;
}

export const FUZZ_KINDS = [
  'valid',
  'deep',
  'deep-in-field',
  'huge-string',
  'tricky-strings',
  'truncated',
  'wrong-type',
  'mutated',
] as const;
export type FuzzKind = (typeof FUZZ_KINDS)[number];

/**
 * One fuzzed document built from `base` (a real payload of the entry point under test). `hugeBytes` sizes the
 * huge strings: around the entry point's byte cap, so both sides of it are hit.
 */
export function fuzzJson(rand: Rand, base: unknown, hugeBytes: number): { kind: FuzzKind; text: string } {
  const kind = pick(rand, FUZZ_KINDS);
  const baseText = JSON.stringify(base);
  switch (kind) {
    case 'valid':
      return { kind, text: baseText };
    case 'deep':
      return { kind, text: nested(rand, pick(rand, DEPTHS), scalar(rand)) };
    case 'deep-in-field': {
      // a real payload with one field replaced by a deep value: the depth hides behind known keys
      const marker = '"__deep__"';
      const withMarker = JSON.stringify(withWrongType(rand, base)).replace(
        /(:)(null|true|false|-?\d[^,}\]]*|"[^"]*")/,
        `$1${marker}`,
      );
      return { kind, text: withMarker.replace(marker, nested(rand, pick(rand, DEPTHS), scalar(rand))) };
    }
    case 'huge-string': {
      const length = Math.floor(hugeBytes * (0.5 + rand()));
      const unit = pick(rand, ['x', 'é', '\\u00e9', '😀', '[']);
      const huge = `"${unit.repeat(Math.ceil(length / unit.length))}"`;
      return { kind, text: baseText.replace(/"[^"]*"/, huge) };
    }
    case 'tricky-strings':
      return { kind, text: `[${Array.from({ length: 1 + int(rand, 8) }, () => scalar(rand)).join(',')}]` };
    case 'truncated':
      return { kind, text: baseText.slice(0, int(rand, baseText.length)) };
    case 'wrong-type':
      return { kind, text: JSON.stringify(withWrongType(rand, base)) };
    case 'mutated':
      return { kind, text: mutated(rand, baseText) };
  }
}

/** The nesting depth of a parsed value, walked with a stack of its own (the value may be thousands deep). */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.node === null || typeof top.node !== 'object') continue;
    max = Math.max(max, top.depth + 1);
    for (const child of Object.values(top.node)) stack.push({ node: child, depth: top.depth + 1 });
  }
  return max;
}

/** The typed error's problem when the bounds refuse `text`, else null. */
export function refusedBy(text: string, bounds: { maxDepth: number; maxBytes: number }): string | null {
  try {
    parseBoundedJson(text, bounds);
    return null;
  } catch (error) {
    return (error as BoundedJsonError).problem;
  }
}
