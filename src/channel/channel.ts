import type { KeywordCommand } from './keywords';

/** A work item's conversation in a chat channel: one thread per work item. */
export interface ChannelThread {
  /** Opaque and stable: the routing key an inbound reply carries too (`slackThreadId`). */
  threadId: string;
  /** Recorded in the portable record, so another machine finds the same thread again. */
  permalink: string;
}

/** What the thread's opening message names. */
export interface ChannelWorkItem {
  /** The canonical work-item ref, `github:owner/repo#N`. */
  ref: string;
  title?: string;
  url?: string;
}

/**
 * Mirroring is best effort: no method throws. A failure (HTTP 5xx, rate limit after its retries, network)
 * is one warning line through the injected logger, and the work item goes on without the channel.
 */
export interface WorkItemChannel {
  readonly kind: 'slack';
  /**
   * The thread `existingPermalink` names when it still exists; otherwise a new one, opened with a message
   * naming the work item. Null when the channel could not be reached (warned).
   */
  openOrFindThread(
    workItem: ChannelWorkItem,
    options: { existingPermalink?: string | null },
  ): Promise<ChannelThread | null>;
  /** Posts a reply in the thread; false when it could not (warned). The text is plain: nothing in it is markup. */
  post(thread: ChannelThread, text: string): Promise<boolean>;
}

/** A human's reply in a work item's thread, as the Events API delivered it. */
export interface ChannelReply {
  /** The Events API event_id: dedupe key. */
  eventId: string;
  /** Equal to the `threadId` of the ChannelThread it replies in. */
  threadId: string;
  channel: string;
  threadTs: string;
  /** The reply's own ts. */
  ts: string;
  /** The Slack member ID. */
  user: string;
  /** Plain text: Slack's `&amp;`, `&lt;`, `&gt;` decoded. */
  text: string;
}

/**
 * What a reply means. `keyword`: an authorized user's reply that is exactly a control keyword; `deliver`: an
 * authorized user's other reply, for the session; untrusted replies never reach the sink.
 */
export type ChannelInbound =
  | { kind: 'keyword'; command: KeywordCommand; reply: ChannelReply }
  | { kind: 'deliver'; reply: ChannelReply };

/**
 * Where classified replies go (the router: thread → work item). A throw makes the receiver answer 500 and
 * release the event id, so Slack's retry is handled.
 */
export type ChannelInboundSink = (inbound: ChannelInbound) => Promise<void>;
