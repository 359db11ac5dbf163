import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyBudget, readBoundedBody, refuseBody } from './bounded-body';
import { capConnections, receiverLimits, serverOptions, type ReceiverLimits } from './limits';
import type { DeliveryLedger } from './dedupe';
import {
  DEFAULT_FORWARD_CONCURRENCY,
  startForwarder,
  type Forwarding,
  type ForwarderStats,
} from './forwarder';
import { startForwardWorker, type HandlerModule } from './forward-thread';
import { BurstHold } from './burst-hold';
import type { Backoff } from './backoff';
import { closeServer } from './close-server';
import type { DeliveryInbox } from './inbox';
import { errorLine } from '../errors';
import { header } from './request-header';
import { silentLog, type MessageLog } from '../log/message-log';
import { replyJson } from './json-reply';
import { verifiedSignature } from './signature';

/** What the forwarder hands a delivery to once it is verified, parsed, not a duplicate and queued. */
export type DeliveryHandler = (delivery: {
  event: string;
  deliveryId: string;
  payload: unknown;
}) => Promise<{ summary: string }>;

export interface ReceiverOptions {
  secret: string;
  path: string;
  maxBodyBytes: number;
  ledger: DeliveryLedger;
  /** Where an accepted delivery is durable before the answer; replayed into forwarding on start. */
  inbox: DeliveryInbox;
  /**
   * Who deliveries are handed to: `handle` in this event loop, or the module `handlerModule` names in a worker
   * thread of their own (what `the-loop webhook` runs: accepting then never shares a core with the bridge).
   * Exactly one of them.
   */
  handle?: DeliveryHandler;
  handlerModule?: HandlerModule;
  /** Deliveries handed to `handle` at once (one at a time per work item). Default 16. */
  forwardConcurrency?: number;
  /** Between attempts of a failed delivery, and the pause of all forwarding after a failure. */
  forwardBackoff?: Backoff;
  logger?: MessageLog;
  /** Other paths served on the same port (`/slack/events`), each with its own checks. */
  routes?: ReadonlyMap<string, RequestListener>;
  /** Connections, buffered bytes, timeouts and the stop's grace; DEFAULT_RECEIVER_LIMITS for what is not given. */
  limits?: Partial<ReceiverLimits>;
}

export interface ReceiverStats extends ForwarderStats {
  received: number;
  /** Accepted and durable in the inbox. */
  queued: number;
  duplicate: number;
  /** Accepted but not queued (its inbox write failed): answered 500. */
  failed: number;
  /** Rejections by HTTP status: 400, 401, 404, 405, 408, 413, 415, 503. */
  rejected: Record<number, number>;
}

export interface Receiver {
  server: Server;
  stats: ReceiverStats;
  listen(port: number, host?: string): Promise<{ port: number; url: string }>;
  close(): Promise<void>;
}

/**
 * The GitHub webhook receiver: plain node:http, so that the signature is checked over the exact bytes received,
 * before anything parses them. Order: path and method, GitHub headers (400), content type (415), size (413,
 * from Content-Length or while streaming), the body budget and its peer's share of it (503), the body deadline
 * (408), signature (401), dedupe (200 duplicate), then the inbox: 202 once the body is on disk there, as
 * received. Parsing it (JSON nested at most MAX_PAYLOAD_DEPTH), Temporal and GitHub are forwarding's business,
 * never the request's: accepting does only what a delivery cannot be answered without.
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  if (!options.secret) throw new Error('the webhook receiver needs a secret');
  if (!options.handle === !options.handlerModule)
    throw new Error('the webhook receiver needs one of handle and handlerModule');
  const logger = options.logger ?? silentLog;
  const stats: ReceiverStats = {
    received: 0,
    queued: 0,
    duplicate: 0,
    failed: 0,
    rejected: {},
    forwarded: 0,
    retried: 0,
    pending: 0,
  };
  // Started once the port is ours: a receiver that cannot listen (another one holds the port) replays nothing.
  let forwarding: BurstHold | null = null;
  const startForwarding = (): Forwarding => {
    const common = {
      inbox: options.inbox,
      ledger: options.ledger,
      concurrency: options.forwardConcurrency ?? DEFAULT_FORWARD_CONCURRENCY,
      stats,
      logger,
      ...(options.forwardBackoff ? { backoff: options.forwardBackoff } : {}),
    };
    if (options.handle) return startForwarder({ ...common, handle: options.handle });
    return startForwardWorker({ ...common, handler: options.handlerModule as HandlerModule });
  };

  const reply = (res: ServerResponse, status: number, body: Record<string, unknown>, close = false) =>
    replyJson(res, stats.rejected, status, body, close);

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    stats.received++;
    // every request on the port counts, Slack's too: forwarding waits while any is being received
    if (forwarding) res.once('close', forwarding.requestStarted());
    const path = (req.url ?? '/').split('?')[0];
    const route = path === options.path ? undefined : options.routes?.get(path ?? '');
    if (route) return route(req, res);
    if (path !== options.path) return reply(res, 404, { error: 'not found' }, true);
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, true);
    const event = header(req, 'x-github-event');
    const deliveryId = header(req, 'x-github-delivery');
    if (!event || !deliveryId || event.length > 100 || deliveryId.length > 200) {
      const answer = deliveryAnswer(event?.slice(0, 100) ?? '-', deliveryId?.slice(0, 200) ?? '-');
      return answer(res, 400, { error: 'missing X-GitHub-Event or X-GitHub-Delivery' }, true);
    }
    const answer = deliveryAnswer(event, deliveryId);
    const contentType = (header(req, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json')
      return answer(res, 415, { error: 'content type must be application/json' }, true);
    const bounds = { maxBytes: options.maxBodyBytes, budget, deadlineMs: limits.bodyDeadlineMs };
    void readBoundedBody(req, res, bounds).then((outcome) => {
      if ('aborted' in outcome)
        return logger.info(`webhook: delivery ${deliveryId} (${event}): aborted: the sender went away`);
      if ('refused' in outcome) return refuseBody(req, res, outcome.refused, options.maxBodyBytes, answer);
      const { body } = outcome;
      onVerified(
        res,
        answer,
        event,
        deliveryId,
        body,
        verifiedSignature(options.secret, body, header(req, 'x-hub-signature-256')),
      );
    });
  }

  /**
   * Answers a delivery and logs its verdict: one info line per delivery (event, delivery id, verdict), whatever
   * the verdict. A failure on our side (500) is the warn line with its cause instead.
   */
  function deliveryAnswer(event: string, deliveryId: string): typeof reply {
    return (res, status, body, close) => {
      const verdict =
        status === 202
          ? 'queued'
          : status === 200
            ? 'duplicate'
            : `rejected ${status}: ${String(body.error)}`;
      logger.info(`webhook: delivery ${deliveryId} (${event}): ${verdict}`);
      reply(res, status, body, close);
    };
  }

  function onVerified(
    res: ServerResponse,
    answer: typeof reply,
    event: string,
    deliveryId: string,
    body: Buffer,
    signature: string | null,
  ): void {
    if (signature === null) return answer(res, 401, { error: 'bad or missing X-Hub-Signature-256' });
    const keys = [`delivery:${deliveryId}`, `body:${signature}`];
    if (!options.ledger.claim(keys)) {
      stats.duplicate++;
      return answer(res, 200, { status: 'duplicate', delivery: deliveryId });
    }
    // the body goes to the inbox as received: parsing it (and refusing one that is not JSON) is forwarding's
    options.inbox.append({ deliveryId, event, keys, body, receivedAt: Date.now() }).then(
      (delivery) => {
        stats.queued++;
        answer(res, 202, { status: 'queued', delivery: deliveryId });
        forwarding?.enqueue(delivery);
      },
      (error: unknown) => {
        options.ledger.release(keys);
        stats.failed++;
        logger.warn(`webhook: delivery ${deliveryId} (${event}) not queued: ${errorLine(error)}`);
        reply(res, 500, { status: 'failed', delivery: deliveryId });
      },
    );
  }

  const limits = receiverLimits(options.limits);
  const budget = new BodyBudget(limits.maxBufferedBytes, limits.maxPeerBufferedBytes);
  const server = createServer(serverOptions(limits));
  server.on('request', capConnections(server, limits, onRequest));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // a request not received whole within requestTimeout (a trickled body) is a timeout, not a bad request
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    else socket.destroy();
  });

  return {
    server,
    stats,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          forwarding ??= new BurstHold(startForwarding(), stats, limits.burstHoldMs);
          const address = server.address() as AddressInfo;
          resolve({ port: address.port, url: `http://${host}:${address.port}${options.path}` });
        });
      });
    },
    /**
     * Within the stop's grace, requests under way are answered and forwarding attempts finish; then the rest is
     * cut, and what was not handed on stays in the inbox for the next start.
     */
    async close() {
      await Promise.all([closeServer(server, limits.stopGraceMs), forwarding?.close(limits.stopGraceMs)]);
      await options.inbox.close();
      await options.ledger.close();
    },
  };
}
