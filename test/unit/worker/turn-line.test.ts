import { emptyUsage } from '../../../src/session/usage-math';
import { summaryOf, turnLine } from '../../../src/worker/turn-line';

const spent = (input: number, output: number, costUsd: number, unpriced: string[] = []) => ({
  usage: {
    ...emptyUsage(),
    input_tokens: input,
    cache_read_input_tokens: 1000,
    output_tokens: output,
    cost_usd: costUsd,
  },
  unpriced,
  complete: true,
});

describe("a turn's line in the work item's thread", () => {
  it('summarizes a reply by its first non-empty line, cut to a chat line', () => {
    expect(summaryOf('\n  Fixed the test.  \nDetails follow')).toBe('Fixed the test.');
    expect(summaryOf(null)).toBe('(no text reply)');
    const long = summaryOf('y'.repeat(500));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('names what the turn cost, to the cent, and its tokens (input counts the cache)', () => {
    expect(turnLine(3, { reply: 'Done.' }, spent(234, 56, 0.057730000000000004))).toBe(
      'turn 3: Done. — cost: $0.06, 1,234 tokens in, 56 out',
    );
    expect(turnLine(3, { reply: 'Done.' }, null)).toBe('turn 3: Done.');
  });

  it('a model with no price is named, never shown as $0.00', () => {
    expect(turnLine(2, { reply: 'ok' }, spent(0, 1, 0, ['claude-mystery-9']))).toBe(
      'turn 2: ok — cost: unpriced (no price for claude-mystery-9), 1,000 tokens in, 1 out',
    );
    expect(turnLine(2, { reply: 'ok' }, spent(0, 1, 0.5, ['m']))).toBe(
      'turn 2: ok — cost: $0.50 + unpriced (no price for m), 1,000 tokens in, 1 out',
    );
  });

  it('a failed or interrupted turn says so, with what it spent', () => {
    expect(turnLine(4, { error: 'the pane died\nlast lines' }, null)).toBe('turn 4 failed: the pane died');
    expect(turnLine(5, { interrupted: 'Esc' }, spent(0, 2, 0.01))).toBe(
      'turn 5 interrupted in the terminal — cost: $0.01, 1,000 tokens in, 2 out',
    );
  });
});
