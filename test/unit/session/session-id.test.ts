import { goalHash, isSessionId, newSessionId, SESSION_ID_PATTERN } from '../../../src/session/session-id';

test('session id follows <YYYYMMDD>_<HHMMSS>_<goal_hash>_<random> in UTC', () => {
  const id = newSessionId('ship it', new Date('2026-04-19T14:30:22.999Z'), 'ab12cd34');
  expect(id).toBe(`20260419_143022_${goalHash('ship it')}_ab12cd34`);
  expect(isSessionId(id)).toBe(true);
});

test('goal hash is the first 12 hex chars of sha256 and deterministic', () => {
  expect(goalHash('abc')).toBe('ba7816bf8f01');
  expect(goalHash('abc')).toBe(goalHash('abc'));
  expect(goalHash('abd')).not.toBe(goalHash('abc'));
});

test('random suffix is fresh hex and ids sort chronologically', () => {
  const a = newSessionId('g', new Date('2026-01-02T03:04:05Z'));
  const b = newSessionId('g', new Date('2026-01-02T03:04:06Z'));
  expect(SESSION_ID_PATTERN.test(a)).toBe(true);
  expect([b, a].sort()).toEqual([a, b]);
  expect(() => newSessionId('g', new Date(), 'XYZ')).toThrow(/8 hex/);
  expect(isSessionId('20260419_143022_71393ee22450')).toBe(false);
});
