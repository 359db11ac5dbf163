import { SIZE_LIMITS } from '../../../src/session/limits';
import { textForPane } from '../../../src/work-item/pane-text';

describe('textForPane', () => {
  test.each([
    ['plain text', 'fix the parser\n\tplease', 'fix the parser\n\tplease'],
    ['CSI colour and cursor moves', 'a\u001b[31mred\u001b[0m\u001b[2J\u001b[Hb', 'aredb'],
    ['OSC title with BEL', 'x\u001b]0;pwned\u0007y', 'xy'],
    ['OSC with ST', 'x\u001b]52;c;aGk=\u001b\\y', 'xy'],
    ['bracketed-paste end smuggled in', 'x\u001b[201~\ry', 'x\ny'],
    ['C0 controls (Ctrl-C, Ctrl-D, backspace, bell)', 'a\u0003b\u0004c\u0008d\u0007e', 'abcde'],
    ['carriage returns', 'one\r\ntwo\rthree', 'one\ntwo\nthree'],
    ['C1 CSI and DEL', 'a\u009b31mb\u007fc', 'a31mbc'],
    ['unicode stays', 'naïve ✓ 日本', 'naïve ✓ 日本'],
  ])('%s', (_name, input, expected) => {
    expect(textForPane(input)).toBe(expected);
  });

  test('text over the cap is cut with a marker that says so', () => {
    const out = textForPane('x'.repeat(SIZE_LIMITS.deliveredEventBytes + 500));
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(SIZE_LIMITS.deliveredEventBytes);
    expect(out).toMatch(/more bytes cut by the-loop/);
  });
});
