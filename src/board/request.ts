import type { IncomingMessage, ServerResponse } from 'node:http';

/** The most a form post may carry: a reply of a few paragraphs, with room to spare. */
export const MAX_FORM_BYTES = 64 * 1024;

/** Headers every answer carries: no inline code, no framing (clickjacking), no referrer, no sniffing. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function reply(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function replyText(res: ServerResponse, status: number, text: string): void {
  reply(res, status, 'text/plain; charset=utf-8', `${text}\n`);
}

/** The body of a form post, up to `max` bytes; null when it is longer (the rest is not read). */
export function readForm(req: IncomingMessage, max = MAX_FORM_BYTES): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

/** One header's value (the first, when repeated). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
