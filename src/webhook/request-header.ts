import type { IncomingMessage } from 'node:http';

/** A request header's first value (node gives repeated headers as an array). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
