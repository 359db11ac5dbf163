import { printable } from '../../../src/cli/printable';

describe('printable', () => {
  test('escapes C0, DEL and C1, names \\n \\r \\t', () => {
    expect(printable('a\nb\rc\td\x00e\x1b[31mf\x7fg\x85h\x9bi')).toBe(
      'a\\nb\\rc\\td\\x00e\\x1b[31mf\\x7fg\\x85h\\x9bi',
    );
  });

  test('leaves printable text, other Unicode and its own output as they are', () => {
    const text = "session '2026' — ünïcødé ✓";
    expect(printable(text)).toBe(text);
    expect(printable(printable('x\ny'))).toBe('x\\ny');
  });
});
