import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const MiB = 1024 * 1024;

/**
 * Request-body bytes held at once across all requests: 32 MiB is 32 of the largest bodies `webhook.maxBodyBytes`
 * allows by default, while a GitHub delivery is mostly a few KiB.
 */
export const MAX_BUFFERED_BYTES = 32 * MiB;

/**
 * One remote address holds at most a quarter of MAX_BUFFERED_BYTES: a single slow or hostile peer then leaves
 * three quarters to everyone else. GitHub delivers from many addresses, so it never meets this share — unless a
 * proxy or tunnel in front of the receiver makes every request come from one address (then it is the body
 * deadline that keeps slow senders from holding the budget).
 */
export const PEER_BUFFERED_SHARE = 0.25;

/**
 * GitHub sends its headers at once and gives up on a delivery not answered within 10 s; half of that is plenty
 * for headers, and a connection that has sent none by then holds a socket for no one.
 */
export const HEADERS_TIMEOUT_MS = 5_000;

/**
 * A body not received whole this long after its headers is answered 408 and its bytes leave the budget: GitHub
 * sends a body (1 MiB at most by default) in well under a second, and an answer after its 10 s would reach no one,
 * so a body that is still trickling in after 5 s is held only at the expense of deliveries that could be answered.
 */
export const BODY_DEADLINE_MS = 5_000;

/**
 * node's own cut-off for a whole request, headers and body: a backstop behind HEADERS_TIMEOUT_MS and
 * BODY_DEADLINE_MS (which answer first), for a request stuck where neither is counting.
 */
export const REQUEST_TIMEOUT_MS = 15_000;

/**
 * What a stop gives requests and forwarding attempts in progress before it cuts them: `the-loop stop` sends
 * SIGKILL 10 s after SIGTERM, and half of that leaves time for the inbox's and ledger's last fsyncs and the close
 * of the Temporal connection. A delivery whose attempt is cut stays unacknowledged in the inbox and is forwarded
 * on the next start.
 */
export const STOP_GRACE_MS = 5_000;

/**
 * How long forwarding may wait for a burst of requests to end (burst-hold.ts): GitHub's own 10 s for an answer is
 * the scale of a burst worth absorbing; past it, a flood that does not end is forwarded beside accepting.
 */
export const BURST_HOLD_MS = 10_000;

/**
 * What the receiver's port lets unauthenticated senders hold. Every request is unsigned until its last byte is
 * read, so each of these bounds memory or sockets an anonymous sender can take.
 */
export interface ReceiverLimits {
  /** Connections served at once; a request on one beyond them gets 503, and beyond twice this they are dropped. */
  maxConnections: number;
  /** Request-body bytes held at once across all requests (each is also capped by maxBodyBytes); beyond: 503. */
  maxBufferedBytes: number;
  /** Request-body bytes held at once by one remote address; beyond: 503. */
  maxPeerBufferedBytes: number;
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a request's body once its headers are in; beyond: 408. */
  bodyDeadlineMs: number;
  /** Time to receive a whole request, headers and body: node's backstop behind the two above. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** On close: how long requests and forwarding attempts in progress may still run. */
  stopGraceMs: number;
  /** How long an accepted delivery may wait for the requests beside it to end before it is forwarded; 0: never. */
  burstHoldMs: number;
}

export const DEFAULT_RECEIVER_LIMITS: ReceiverLimits = {
  maxConnections: 256,
  maxBufferedBytes: MAX_BUFFERED_BYTES,
  maxPeerBufferedBytes: Math.floor(MAX_BUFFERED_BYTES * PEER_BUFFERED_SHARE),
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  bodyDeadlineMs: BODY_DEADLINE_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: 5_000,
  stopGraceMs: STOP_GRACE_MS,
  burstHoldMs: BURST_HOLD_MS,
};

/** The limits given, DEFAULT_RECEIVER_LIMITS for the rest; a peer's share follows the budget given. */
export function receiverLimits(given: Partial<ReceiverLimits> = {}): ReceiverLimits {
  const maxBufferedBytes = given.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  return {
    ...DEFAULT_RECEIVER_LIMITS,
    maxPeerBufferedBytes: Math.floor(maxBufferedBytes * PEER_BUFFERED_SHARE),
    ...given,
  };
}

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

/**
 * How deep a GitHub or Slack body may nest. Real ones nest about ten levels at most (a check_run's
 * pull_requests[].head.repo, a Slack message's rich-text blocks); 64 leaves room for payloads to grow while
 * staying far below the few thousand levels at which JSON.stringify overflows the stack. Checked on the raw
 * text, before parsing.
 */
export const MAX_PAYLOAD_DEPTH = 64;
