import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelInboundSink } from '../channel/channel';
import { classifyReply, parseSlackEnvelope, threadReplyOf } from '../channel/slack/events';
import { verifySlackSignature } from '../channel/slack/signature';
import type { DeliveryLedger } from './dedupe';
import { BodyBudget, readBoundedBody, refuseBody } from './bounded-body';
import { DEFAULT_RECEIVER_LIMITS, MAX_PAYLOAD_DEPTH } from './limits';
import { header } from './request-header';
import { errorLine } from '../errors';
import { silentLog, type MessageLog } from '../log/message-log';
import { replyJson } from './json-reply';
import { parseBoundedJson, type BoundedJsonError } from '../json/bounded-json';

/** The Events API request URL's path, served beside the GitHub webhook's. */
export const SLACK_EVENTS_PATH = '/slack/events';

export interface SlackEventsOptions {
  signingSecret: string;
  /** Slack member IDs whose replies count; everyone else's are logged and dropped. */
  authorizedUsers: readonly string[];
  maxBodyBytes: number;
  /** The receiver's durable ledger: Slack event ids are recorded beside GitHub delivery ids. */
  ledger: DeliveryLedger;
  sink: ChannelInboundSink;
  /** Slack retries a request not answered within 3 s: answer 200 by then even when the sink still runs. */
  responseDeadlineMs?: number;
  now?: () => number;
  logger?: MessageLog;
  /** Request-body bytes held at once; pass the receiver's to bound both routes together. */
  budget?: BodyBudget;
}

export interface SlackEventsStats {
  received: number;
  handled: number;
  duplicate: number;
  failed: number;
  ignored: number;
  untrusted: number;
  /** Rejections by HTTP status: 400, 401, 405, 408, 413, 503. */
  rejected: Record<number, number>;
}

export type SlackEventsRoute = ((req: IncomingMessage, res: ServerResponse) => void) & {
  stats: SlackEventsStats;
};

/**
 * POST /slack/events, the Events API request URL. Order: method (405), size (413), signature and its
 * five-minute window (401), JSON nested at most MAX_PAYLOAD_DEPTH and envelope shape (400); then the url_verification challenge, or an
 * event_callback: a human's thread reply is classified, deduped by event_id and handed to the sink.
 */
export function createSlackEventsRoute(options: SlackEventsOptions): SlackEventsRoute {
  if (!options.signingSecret) throw new Error('the Slack events route needs a signing secret');
  const logger = options.logger ?? silentLog;
  const now = options.now ?? Date.now;
  const deadline = options.responseDeadlineMs ?? 2500;
  // Bodies held at once are bounded like the GitHub route's, by the caller's budget or one of the same size.
  const { maxBufferedBytes, maxPeerBufferedBytes, bodyDeadlineMs } = DEFAULT_RECEIVER_LIMITS;
  const budget = options.budget ?? new BodyBudget(maxBufferedBytes, maxPeerBufferedBytes);
  const stats: SlackEventsStats = {
    received: 0,
    handled: 0,
    duplicate: 0,
    failed: 0,
    ignored: 0,
    untrusted: 0,
    rejected: {},
  };

  const reply = (res: ServerResponse, status: number, body: Record<string, unknown>, close = false) =>
    replyJson(res, stats.rejected, status, body, close);

  function onBody(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const check = verifySlackSignature(
      options.signingSecret,
      body,
      { timestamp: header(req, 'x-slack-request-timestamp'), signature: header(req, 'x-slack-signature') },
      now(),
    );
    if (check !== 'ok') return reply(res, 401, { error: `${check} X-Slack-Signature` });
    let payload: unknown;
    try {
      payload = parseBoundedJson(body.toString('utf8'), {
        maxDepth: MAX_PAYLOAD_DEPTH,
        maxBytes: options.maxBodyBytes,
      });
    } catch (error) {
      const refused = error as BoundedJsonError;
      // V8's syntax message quotes the body: only the verdict is logged and answered
      const reason = refused.problem === 'not-json' ? 'body is not JSON' : refused.message;
      logger.info(`slack: request refused: ${reason}`);
      return reply(res, 400, { error: reason });
    }
    const envelope = parseSlackEnvelope(payload);
    if (!envelope) return reply(res, 400, { error: 'not an Events API envelope' });
    if (envelope.kind === 'challenge') return reply(res, 200, { challenge: envelope.challenge });
    if (envelope.kind === 'other') {
      stats.ignored++;
      return reply(res, 200, { status: 'ignored', reason: envelope.type });
    }
    const threadReply = threadReplyOf(envelope.eventId, envelope.event);
    if ('ignored' in threadReply) {
      stats.ignored++;
      return reply(res, 200, { status: 'ignored', reason: threadReply.ignored });
    }
    const inbound = classifyReply(threadReply, options.authorizedUsers);
    if ('untrusted' in inbound) {
      stats.untrusted++;
      logger.warn(
        `slack: ${envelope.eventId}: reply by ${threadReply.user} in ${threadReply.threadId} ignored: not an authorized Slack user`,
      );
      return reply(res, 200, { status: 'ignored', reason: 'unauthorized user' });
    }
    // only what reaches the sink is recorded: every other message in the channel would only grow the ledger
    const keys = [`slack-event:${envelope.eventId}`];
    if (!options.ledger.claim(keys)) {
      stats.duplicate++;
      return reply(res, 200, { status: 'duplicate', event: envelope.eventId });
    }
    let answered = false;
    const timer = setTimeout(() => {
      answered = true;
      reply(res, 200, { status: 'processing', event: envelope.eventId });
    }, deadline);
    options
      .sink(inbound)
      .then(async () => {
        await options.ledger.commit(keys);
        stats.handled++;
        clearTimeout(timer);
        logger.info(
          `slack: ${envelope.eventId}: ${inbound.kind === 'keyword' ? `keyword ${inbound.command}` : 'reply'} in ${threadReply.threadId}`,
        );
        if (!answered) reply(res, 200, { status: 'accepted', event: envelope.eventId, kind: inbound.kind });
      })
      .catch((error: unknown) => {
        options.ledger.release(keys);
        stats.failed++;
        clearTimeout(timer);
        logger.warn(`slack: ${envelope.eventId} failed: ${errorLine(error)}`);
        if (!answered) reply(res, 500, { status: 'failed', event: envelope.eventId });
      });
  }

  const route = (req: IncomingMessage, res: ServerResponse): void => {
    stats.received++;
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, true);
    const bounds = { maxBytes: options.maxBodyBytes, budget, deadlineMs: bodyDeadlineMs };
    void readBoundedBody(req, res, bounds).then((outcome) => {
      if ('aborted' in outcome) return;
      if ('refused' in outcome) return refuseBody(req, res, outcome.refused, options.maxBodyBytes, reply);
      onBody(req, res, outcome.body);
    });
  };
  return Object.assign(route, { stats });
}
