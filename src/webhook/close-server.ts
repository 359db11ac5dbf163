import type { Server } from 'node:http';

/**
 * Stops listening and waits for the connections to go: idle ones at once, those with a request under way once it
 * is answered, and whatever is left after `graceMs` (a sender still trickling a body) is cut, so that a stop never
 * waits on a sender.
 */
export async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(cut);
}
