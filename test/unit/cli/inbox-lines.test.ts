import { age, beganLine, endedLine, inboxRow, printable } from '../../../src/cli/inbox-lines';
import type { InboxEntry } from '../../../src/use-cases/inbox';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');
const entry: InboxEntry = {
  kind: 'work-item',
  session: 'github:octo/repo#7',
  reason: 'permission',
  detail: 'Claude needs your permission to use Bash',
  since: '2026-12-02T11:48:30.123Z',
  next: 'the-loop sessions attach --work-item github:octo/repo#7',
  spent: { cost_usd: 0.057730000000000004, unpriced: false },
};

describe('inbox lines', () => {
  it('ages read at a glance', () => {
    const ago = (s: number) => age(new Date(NOW - s * 1000).toISOString(), NOW);
    expect([ago(5), ago(125), ago(3 * 3600 + 5 * 60), ago(2 * 86400 + 4 * 3600)]).toEqual([
      '5s',
      '2m',
      '3h05m',
      '2d04h',
    ]);
    expect(age('2026-12-02T12:00:05.000Z', NOW)).toBe('0s');
  });

  it('a row: since (to the second), age, reason, session, cost to the cent, what is asked', () => {
    expect(inboxRow(entry, NOW)).toEqual([
      '2026-12-02T11:48:30Z',
      '11m',
      'permission',
      'github:octo/repo#7',
      '$0.06',
      'Claude needs your permission to use Bash',
    ]);
    expect(inboxRow({ ...entry, spent: null }, NOW)[4]).toBe('-');
    expect(inboxRow({ ...entry, spent: { cost_usd: 0.5, unpriced: true } }, NOW)[4]).toBe('$0.50+unpriced');
    expect(inboxRow({ ...entry, spent: { cost_usd: 0, unpriced: true } }, NOW)[4]).toBe('unpriced');
  });

  it('no control character reaches the terminal raw', () => {
    expect(printable('a\u001b[2Jb\nc\u0007')).toBe('a?[2Jb?c?');
    expect(inboxRow({ ...entry, detail: 'x\u001b]0;owned\u0007' }, NOW)[5]).toBe('x?]0;owned?');
  });

  it('--follow says when a wait begins, with how to answer it, and when it ends', () => {
    expect(beganLine(entry, NOW)).toBe(
      'waiting: 2026-12-02T11:48:30Z  11m  permission  github:octo/repo#7  $0.06  Claude needs your permission to use Bash — the-loop sessions attach --work-item github:octo/repo#7',
    );
    expect(endedLine(entry, NOW)).toBe(
      'answered: github:octo/repo#7 no longer waits (permission, after 11m)',
    );
  });
});
