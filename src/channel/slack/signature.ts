import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window: a request stamped further than this from now is refused. */
export const SLACK_TIMESTAMP_WINDOW_S = 5 * 60;

const SIGNATURE = /^v0=([0-9a-f]{64})$/;
const TIMESTAMP = /^\d{1,12}$/;

export type SlackSignatureCheck = 'ok' | 'missing' | 'bad' | 'stale';

/**
 * X-Slack-Signature is `v0=` and the hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}`; checked in
 * constant time over the exact bytes received, and only within five minutes of the timestamp.
 */
export function verifySlackSignature(
  secret: string,
  body: Buffer,
  headers: { timestamp: string | undefined; signature: string | undefined },
  nowMs: number = Date.now(),
): SlackSignatureCheck {
  const timestamp = headers.timestamp?.trim();
  const match = headers.signature ? SIGNATURE.exec(headers.signature.trim().toLowerCase()) : null;
  if (!timestamp || !match?.[1]) return 'missing';
  if (!TIMESTAMP.test(timestamp)) return 'bad';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_TIMESTAMP_WINDOW_S) return 'stale';
  const given = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'bad';
}
