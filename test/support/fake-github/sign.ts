import { createHmac } from 'node:crypto';

/**
 * X-Hub-Signature-256 as GitHub computes it, over the exact bytes sent. The receiver's own check is held to GitHub's
 * documented test vector (test/unit/webhook/signature.test.ts), not to this function.
 */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** POSTs a delivery as GitHub does: a JSON body, the event and delivery headers, and the body's signature. */
export async function postDelivery(
  url: string,
  secret: string,
  delivery: { event: string; id: string; payload: unknown },
): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(delivery.payload);
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': delivery.event,
      'x-github-delivery': delivery.id,
      'x-hub-signature-256': signBody(secret, body),
    },
  });
  return { status: res.status, text: await res.text() };
}
