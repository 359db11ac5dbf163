import { createHash, randomBytes } from 'node:crypto';

/** `<YYYYMMDD>_<HHMMSS>_<goal_hash>_<random>`, UTC, so directory names sort chronologically. */
export const SESSION_ID_PATTERN = /^\d{8}_\d{6}_[0-9a-f]{12}_[0-9a-f]{8}$/;

export function goalHash(goal: string): string {
  return createHash('sha256').update(goal, 'utf8').digest('hex').slice(0, 12);
}

export function newSessionId(goal: string, now: Date = new Date(), random?: string): string {
  const suffix = random ?? randomBytes(4).toString('hex');
  if (!/^[0-9a-f]{8}$/.test(suffix))
    throw new Error(`session id random part must be 8 hex chars, got '${suffix}'`);
  const iso = now.toISOString(); // 2026-04-19T14:30:22.000Z
  const date = iso.slice(0, 10).replace(/-/g, '');
  const time = iso.slice(11, 19).replace(/:/g, '');
  return `${date}_${time}_${goalHash(goal)}_${suffix}`;
}

export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}
