import { createHmac } from 'node:crypto';

/** X-Hub-Signature-256 as GitHub computes it, over the exact bytes sent (the receiver's check is a library's). */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
