import { isUtf8 } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_PREFIX = 'sha256=';
/** GitHub writes the digest in lowercase hex. */
const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * X-Hub-Signature-256 checked as GitHub documents it: HMAC-SHA256 of the exact bytes received, keyed with the
 * webhook's secret, compared in constant time; returns the signature's hex digest when it is valid, else null. The
 * bytes are hashed as they came, never decoded and encoded again on the way (which a check over the body's text
 * needs, and which cost the accepting path two copies of every body). A body that is not UTF-8 is refused as
 * unsigned: GitHub sends UTF-8 JSON, and forwarding reads the body as text.
 */
export function verifiedSignature(secret: string, body: Buffer, header: string | undefined): string | null {
  if (!header?.startsWith(SIGNATURE_PREFIX) || body.length === 0 || !isUtf8(body)) return null;
  const given = header.slice(SIGNATURE_PREFIX.length);
  if (!HEX_DIGEST.test(given)) return null;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected) ? given : null;
}
