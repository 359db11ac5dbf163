import { setTimeout as sleep } from 'node:timers/promises';
import { LogLevel, WebClient, type Logger } from '@slack/web-api';
import type { ChannelThread, ChannelWorkItem, WorkItemChannel } from '../channel';
import { describeSlackError, platformError, rateLimitedFor } from './slack-error';
import { parseSlackPermalink, parseSlackThreadId, slackThreadId, type SlackThreadRef } from './thread-ref';

export interface SlackChannelOptions {
  token: string;
  /** Where new threads open: a channel ID or name. */
  channel: string;
  /** The Web API base URL; a local fake in tests. */
  apiUrl?: string;
  /** One line per failure; the work item goes on. */
  warn: (line: string) => void;
  /** Retries of a 5xx or network failure, with a short backoff. Default 2. */
  retries?: number;
  /** A 429 is waited out (Retry-After) at most this many times… Default 2. */
  rateLimitRetries?: number;
  /** …and only when Slack asks for at most this long; a longer wait drops the message. Default 10 s. */
  maxRateLimitWaitMs?: number;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
}

/** The client's own console logging is replaced by our one-line warnings. */
const QUIET: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

/** Slack reads `&`, `<` and `>` as markup; posted text is plain. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function openingText(workItem: ChannelWorkItem): string {
  const title = workItem.title ? ` — ${workItem.title}` : '';
  return `the-loop: ${workItem.ref}${title}${workItem.url ? `\n${workItem.url}` : ''}`;
}

/** The Slack implementation of a work item's channel: chat.postMessage, chat.getPermalink, conversations.replies. */
export class SlackChannel implements WorkItemChannel {
  readonly kind = 'slack' as const;
  private readonly client: WebClient;

  constructor(private readonly options: SlackChannelOptions) {
    this.client = new WebClient(options.token, {
      slackApiUrl: options.apiUrl,
      logger: QUIET,
      timeout: options.timeoutMs ?? 10_000,
      // 5xx and network failures: a few quick retries. A 429 comes back at once and is waited out in `call`,
      // where a long Retry-After can be refused: a mirror that lags minutes behind is worth less than the turn.
      retryConfig: { retries: options.retries ?? 2, factor: 2, minTimeout: 250, maxTimeout: 2000 },
      rejectRateLimitedCalls: true,
    });
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    const maxWaitMs = this.options.maxRateLimitWaitMs ?? 10_000;
    for (let waited = 0; ; waited++) {
      try {
        return await run();
      } catch (error) {
        const seconds = rateLimitedFor(error);
        if (seconds === null || waited >= (this.options.rateLimitRetries ?? 2) || seconds * 1000 > maxWaitMs)
          throw error;
        await sleep(seconds * 1000);
      }
    }
  }

  async openOrFindThread(
    workItem: ChannelWorkItem,
    options: { existingPermalink?: string | null },
  ): Promise<ChannelThread | null> {
    const recorded = options.existingPermalink ? parseSlackPermalink(options.existingPermalink) : null;
    if (options.existingPermalink && !recorded)
      this.options.warn(
        `slack: ${workItem.ref}: the recorded thread link is not a Slack message link; opening a new thread`,
      );
    if (recorded && options.existingPermalink) {
      const state = await this.threadState(workItem.ref, recorded);
      if (state !== 'gone')
        return { threadId: slackThreadId(recorded), permalink: options.existingPermalink };
      this.options.warn(`slack: ${workItem.ref}: the recorded thread is gone; opening a new thread`);
    }
    return this.open(workItem);
  }

  /** `unknown` (Slack unreachable) keeps the recorded thread: a second thread is worse than a late check. */
  private async threadState(ref: string, thread: SlackThreadRef): Promise<'found' | 'gone' | 'unknown'> {
    try {
      const answer = await this.call(() =>
        this.client.conversations.replies({ channel: thread.channel, ts: thread.ts, limit: 1 }),
      );
      return answer.messages?.some((m) => m.ts === thread.ts) ? 'found' : 'gone';
    } catch (error) {
      const code = platformError(error);
      if (code === 'thread_not_found' || code === 'channel_not_found' || code === 'message_not_found')
        return 'gone';
      this.options.warn(
        `slack: ${ref}: could not check the recorded thread (${describeSlackError(error)}); keeping it`,
      );
      return 'unknown';
    }
  }

  private async open(workItem: ChannelWorkItem): Promise<ChannelThread | null> {
    let thread: SlackThreadRef;
    try {
      const posted = await this.call(() =>
        this.client.chat.postMessage({
          channel: this.options.channel,
          text: escapeText(openingText(workItem)),
          mrkdwn: false,
          unfurl_links: false,
          unfurl_media: false,
        }),
      );
      if (!posted.channel || !posted.ts) throw new Error('chat.postMessage answered without channel or ts');
      thread = { channel: posted.channel, ts: posted.ts };
    } catch (error) {
      this.options.warn(`slack: ${workItem.ref}: could not open a thread (${describeSlackError(error)})`);
      return null;
    }
    try {
      const link = await this.call(() =>
        this.client.chat.getPermalink({ channel: thread.channel, message_ts: thread.ts }),
      );
      if (!link.permalink) throw new Error('chat.getPermalink answered without a permalink');
      return { threadId: slackThreadId(thread), permalink: link.permalink };
    } catch (error) {
      this.options.warn(
        `slack: ${workItem.ref}: opened a thread but could not get its link (${describeSlackError(error)})`,
      );
      return null;
    }
  }

  async post(thread: ChannelThread, text: string): Promise<boolean> {
    const ref = parseSlackThreadId(thread.threadId);
    if (!ref) {
      this.options.warn(`slack: '${thread.threadId}' is not a Slack thread; not posted`);
      return false;
    }
    try {
      await this.call(() =>
        this.client.chat.postMessage({
          channel: ref.channel,
          thread_ts: ref.ts,
          text: escapeText(text),
          mrkdwn: false,
          unfurl_links: false,
          unfurl_media: false,
        }),
      );
      return true;
    } catch (error) {
      this.options.warn(`slack: could not post in ${thread.permalink} (${describeSlackError(error)})`);
      return false;
    }
  }
}
