import { BoundedJsonError, depthExceededAt, parseBoundedJson } from '../../../src/json/bounded-json';
import { issueCommentPayload } from '../../support/fake-github/payloads';
import { depthOf, fuzzJson, seeded } from '../../support/json-fuzz';

const BOUNDS = { maxDepth: 64, maxBytes: 64 * 1024 };

/** What parseBoundedJson did with a text: its value, or the typed error's problem. Anything else is thrown. */
function outcome(text: string): { value: unknown } | { problem: BoundedJsonError['problem'] } {
  try {
    return { value: parseBoundedJson(text, BOUNDS) };
  } catch (error) {
    if (error instanceof BoundedJsonError) return { problem: error.problem };
    throw error;
  }
}

describe('parseBoundedJson', () => {
  it('measures depth as nesting of arrays and objects outside strings', () => {
    expect(depthExceededAt('1', 0)).toBe(-1);
    expect(depthExceededAt('{}', 0)).toBe(0);
    expect(depthExceededAt('{"a":[1]}', 2)).toBe(-1);
    expect(depthExceededAt('{"a":[1]}', 1)).toBe(5);
    // brackets in strings, escaped quotes and escaped backslashes do not count
    expect(depthExceededAt('["[[[[", "\\"[[", "\\\\", {}]', 2)).toBe(-1);
    expect(depthExceededAt('["\\\\", [[]]]', 2)).toBe(8);
  });

  it('refuses a text nested too deep, or too big, with one line naming the limit', () => {
    expect(() => parseBoundedJson('['.repeat(65) + ']'.repeat(65), BOUNDS)).toThrow(
      'JSON nests deeper than 64 levels (at character 64): send a flatter document',
    );
    expect(() => parseBoundedJson(`"${'é'.repeat(40 * 1024)}"`, BOUNDS)).toThrow(
      `JSON is ${80 * 1024 + 2} bytes, over the limit of ${64 * 1024}: send a smaller document`,
    );
    expect(() => parseBoundedJson('{"a":', BOUNDS)).toThrow(/^not valid JSON: /);
    expect(parseBoundedJson('['.repeat(64) + ']'.repeat(64), BOUNDS)).toBeDefined();
  });

  it('fuzz: 600 documents each give a value within the bounds or the typed error, agreeing with JSON.parse', () => {
    const rand = seeded(20250611);
    const base = issueCommentPayload('the-loop start');
    const kinds = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const { kind, text } = fuzzJson(rand, base, BOUNDS.maxBytes);
      kinds.add(kind);
      const got = outcome(text);
      let expected: unknown;
      let syntaxError = false;
      try {
        expected = JSON.parse(text);
      } catch {
        syntaxError = true;
      }
      const context = `case ${i} (${kind}): ${text.slice(0, 80)}`;
      if ('value' in got) {
        expect({ context, value: got.value }).toEqual({ context, value: expected });
        expect(depthOf(got.value)).toBeLessThanOrEqual(BOUNDS.maxDepth);
        // what passed the bounds is safe for the recursive work that follows
        expect(() => JSON.stringify(got.value)).not.toThrow();
      } else if (got.problem === 'not-json')
        expect({ context, syntaxError }).toEqual({ context, syntaxError: true });
      else if (got.problem === 'too-deep' && !syntaxError)
        expect({ context, deeper: depthOf(expected) > BOUNDS.maxDepth }).toEqual({ context, deeper: true });
      else if (got.problem === 'too-large')
        expect({ context, over: Buffer.byteLength(text) > BOUNDS.maxBytes }).toEqual({ context, over: true });
    }
    expect(kinds.size).toBe(8);
  });
});
