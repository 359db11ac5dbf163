/** A Slack thread is its channel ID and its parent message's ts. */
export interface SlackThreadRef {
  channel: string;
  ts: string;
}

/** The `threadId` of both the ChannelThread and the ChannelReply: equal strings mean the same thread. */
export function slackThreadId(ref: SlackThreadRef): string {
  return `slack:${ref.channel}/${ref.ts}`;
}

const THREAD_ID = /^slack:([A-Z0-9]+)\/(\d+\.\d+)$/;

export function parseSlackThreadId(threadId: string): SlackThreadRef | null {
  const match = THREAD_ID.exec(threadId);
  return match?.[1] && match[2] ? { channel: match[1], ts: match[2] } : null;
}

const PERMALINK = /^https:\/\/[^/?#]+\/archives\/([A-Z0-9]+)\/p(\d{7,})(?:[?#].*)?$/;

/**
 * A message permalink, `https://<workspace>.slack.com/archives/C0123ABC/p1700000000123456`, names the channel and
 * the message's ts without its dot (the last six digits are the fraction).
 */
export function parseSlackPermalink(permalink: string): SlackThreadRef | null {
  const match = PERMALINK.exec(permalink.trim());
  if (!match?.[1] || !match[2]) return null;
  const digits = match[2];
  return { channel: match[1], ts: `${digits.slice(0, -6)}.${digits.slice(-6)}` };
}
