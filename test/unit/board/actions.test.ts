import { parseAction } from '../../../src/board/actions';

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe("the board's posted actions", () => {
  it('reads each action with its inputs', () => {
    expect(parseAction(form({ action: 'allow' }))).toEqual({ action: 'allow' });
    expect(parseAction(form({ action: 'deny', reason: '  not that  ' }))).toEqual({
      action: 'deny',
      reason: 'not that',
    });
    expect(parseAction(form({ action: 'reject', reason: '' }))).toEqual({ action: 'reject', reason: null });
    expect(parseAction(form({ action: 'approve' }))).toEqual({ action: 'approve' });
    expect(parseAction(form({ action: 'reply', text: 'yes, go on' }))).toEqual({
      action: 'reply',
      text: 'yes, go on',
    });
    expect(parseAction(form({ action: 'raise', to: '12.50' }))).toEqual({ action: 'raise', to: 12.5 });
    expect(parseAction(form({ action: 'stop' }))).toEqual({ action: 'stop' });
    expect(parseAction(form({ action: 'resume' }))).toEqual({ action: 'resume' });
  });

  it('refuses what is not an action, in one line', () => {
    expect(parseAction(form({ action: 'rm -rf' }))).toEqual({ error: "unknown action 'rm -rf'" });
    expect(parseAction(form({}))).toEqual({ error: "unknown action ''" });
    expect(parseAction(form({ action: 'reply', text: '   ' }))).toEqual({ error: 'the answer is empty' });
    for (const to of ['', '0', '-1', '1e3', '0x10', 'ten'])
      expect(parseAction(form({ action: 'raise', to }))).toHaveProperty('error');
    expect(parseAction(form({ action: 'reply', text: 'x'.repeat(4001) }))).toHaveProperty('error');
  });
});
