import { questionOf } from '../../../src/session/reply-question';

describe('the question a reply ends on', () => {
  it('is its last paragraph, when that ends with a question mark (through markdown and quotes)', () => {
    expect(questionOf('I read the issue.\n\nShould I target `main` or `release/2.x`?')).toBe(
      'Should I target `main` or `release/2.x`?',
    );
    expect(questionOf('Done.\n\n**Do you want me to open the PR now?**\n')).toBe(
      '**Do you want me to open the PR now?**',
    );
    expect(questionOf('Which one:\n- a\n- b\nshall I take?')).toBe('Which one: - a - b shall I take?');
  });

  it('is none when the reply ends otherwise, asks earlier, or is empty', () => {
    expect(questionOf('Why did it fail? The lock file was stale.\n\nFixed it.')).toBeNull();
    expect(questionOf('All tests pass.')).toBeNull();
    expect(questionOf('')).toBeNull();
    expect(questionOf(null)).toBeNull();
  });

  it('keeps its end when it is long: the question is there', () => {
    const long = `${'context '.repeat(100)}ok to proceed?`;
    const asked = questionOf(long) ?? '';
    expect(asked.length).toBe(300);
    expect(asked.endsWith('ok to proceed?')).toBe(true);
  });
});
