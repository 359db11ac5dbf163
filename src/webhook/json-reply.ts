import type { ServerResponse } from 'node:http';

/**
 * Answers with a JSON body, counting a rejection (4xx, 503) by status in `rejected`; nothing is written twice.
 * `close` ends the connection after the answer (a request whose body is not read to its end).
 */
export function replyJson(
  res: ServerResponse,
  rejected: Record<number, number>,
  status: number,
  body: Record<string, unknown>,
  close = false,
): void {
  if (status >= 400 && status !== 500) rejected[status] = (rejected[status] ?? 0) + 1;
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}
