import {
  continuedWaiting,
  oneLine,
  waitingOf,
  type WaitingView,
} from '../../../../src/workflows/work-item/waiting';

const view = (over: Partial<WaitingView>): WaitingView => ({
  state: 'active',
  pane: null,
  gate: null,
  tmuxLost: null,
  blocked: null,
  ...over,
});

describe('what a work-item session waits on a person for', () => {
  it('nothing, while it runs or idles with nothing asked', () => {
    expect(waitingOf(view({}))).toBeNull();
  });

  it('a reached budget after the pane’s dialog and before a gate; stopping ends it', () => {
    const budget = 'github:o/r#1 spent $0.04 of its $0.03 budget';
    const gate = { node: 'review-spec', details: 'waiting at review-spec' };
    expect(waitingOf(view({ budget, gate }))).toEqual({ reason: 'budget', detail: budget });
    const pane = { message: 'permission?', reason: 'permission' as const };
    expect(waitingOf(view({ budget, pane }))?.reason).toBe('permission');
    expect(waitingOf(view({ budget, blocked: 'x' }))?.reason).toBe('blocked');
    expect(waitingOf(view({ budget, state: 'closing' }))).toBeNull();
  });

  it('a fault first, then the pane’s dialog, then a gate', () => {
    const pane = { message: 'Claude needs your permission to use Bash', reason: 'permission' as const };
    const gate = { node: 'review-spec', details: 'waiting at review-spec: is the spec right?' };
    expect(waitingOf(view({ pane, gate, blocked: 'the spawn failed' }))).toEqual({
      reason: 'blocked',
      detail: 'the spawn failed',
    });
    expect(waitingOf(view({ pane, gate }))).toEqual({ reason: 'permission', detail: pane.message });
    expect(waitingOf(view({ gate }))).toEqual({ reason: 'gate', detail: gate.details });
    expect(waitingOf(view({ tmuxLost: 'the tmux server is gone' }))?.reason).toBe('blocked');
    expect(waitingOf(view({ pane: { message: 'Pick one', reason: 'question' } }))?.reason).toBe('question');
  });

  it('a paused session waits only on a fault; a closing or closed one on nobody', () => {
    const pane = { message: 'permission?', reason: 'permission' as const };
    expect(waitingOf(view({ state: 'paused', pane }))).toBeNull();
    expect(waitingOf(view({ state: 'paused', blocked: 'disk full' }))?.reason).toBe('blocked');
    expect(waitingOf(view({ state: 'closing', blocked: 'x', pane }))).toBeNull();
    expect(waitingOf(view({ state: 'closed', pane }))).toBeNull();
  });

  it('keeps since while the wait is the same, and starts it again when it changes', () => {
    const first = continuedWaiting(null, { reason: 'gate', detail: 'a' }, '2026-12-02T10:00:00.000Z');
    expect(first).toEqual({ reason: 'gate', detail: 'a', since: '2026-12-02T10:00:00.000Z' });
    expect(continuedWaiting(first, { reason: 'gate', detail: 'a' }, '2026-12-02T11:00:00.000Z')).toBe(first);
    expect(continuedWaiting(first, { reason: 'gate', detail: 'b' }, '2026-12-02T11:00:00.000Z')?.since).toBe(
      '2026-12-02T11:00:00.000Z',
    );
    expect(continuedWaiting(first, null, '2026-12-02T11:00:00.000Z')).toBeNull();
  });

  it('a detail is one line, clipped', () => {
    expect(oneLine('  Bash:\n  rm -rf build\t ')).toBe('Bash: rm -rf build');
    const long = oneLine('x'.repeat(1000));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });
});
