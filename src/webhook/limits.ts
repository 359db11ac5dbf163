import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What the receiver's port lets unauthenticated senders hold. Every request is unsigned until its last byte is
 * read, so each of these bounds memory or sockets an anonymous sender can take.
 */
export interface ReceiverLimits {
  /** Connections served at once; a request on one beyond them gets 503, and beyond twice this they are dropped. */
  maxConnections: number;
  /** Request-body bytes held at once across all requests (each is also capped by maxBodyBytes); beyond: 503. */
  maxBufferedBytes: number;
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body: a trickled (slowloris) request is cut off by it. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_RECEIVER_LIMITS: ReceiverLimits = {
  maxConnections: 256,
  maxBufferedBytes: 32 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** The node:http options that enforce the timeouts: Node checks them every connectionsCheckingInterval ms. */
export function serverOptions(limits: ReceiverLimits): ServerOptions {
  return {
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/**
 * Counts the server's connections: a request on a connection beyond `maxConnections` is answered 503 before its
 * body is read, and a connection beyond twice the cap is dropped by the server itself (server.maxConnections),
 * so a flood holds at most that many sockets, each only until its headers timeout.
 */
export function capConnections(
  server: Server,
  limits: ReceiverLimits,
  listener: RequestListener,
): RequestListener {
  const open = new Set<Socket>();
  const excess = new WeakSet<Socket>();
  server.maxConnections = limits.maxConnections * 2;
  server.on('connection', (socket: Socket) => {
    if (open.size >= limits.maxConnections) excess.add(socket);
    else {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    }
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!excess.has(req.socket)) return listener(req, res);
    const text = JSON.stringify({ error: 'too many connections' });
    res.writeHead(503, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'retry-after': '1',
      connection: 'close',
    });
    res.end(text);
  };
}
