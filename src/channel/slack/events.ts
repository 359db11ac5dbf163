import { z } from 'zod';
import { parseKeyword } from '../keywords';
import type { ChannelInbound, ChannelReply } from '../channel';
import { slackThreadId } from './thread-ref';

/** The Events API envelopes the receiver acts on; any other `type` is acknowledged and ignored. */
const urlVerification = z.looseObject({ type: z.literal('url_verification'), challenge: z.string().min(1) });
const eventCallback = z.looseObject({
  type: z.literal('event_callback'),
  event_id: z.string().min(1).max(200),
  event: z.looseObject({ type: z.string() }),
});
const otherEnvelope = z.looseObject({ type: z.string() });

/** A `message` event (message.channels / message.groups), the fields a thread reply is read from. */
const messageEvent = z.looseObject({
  type: z.literal('message'),
  channel: z.string().min(1),
  ts: z.string().min(1),
  thread_ts: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  text: z.string().optional(),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
});

export type SlackEnvelope =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'event'; eventId: string; event: Record<string, unknown> & { type: string } }
  | { kind: 'other'; type: string };

/** Null when the body is not an Events API envelope (a 400). */
export function parseSlackEnvelope(payload: unknown): SlackEnvelope | null {
  const challenge = urlVerification.safeParse(payload);
  if (challenge.success) return { kind: 'challenge', challenge: challenge.data.challenge };
  const callback = eventCallback.safeParse(payload);
  if (callback.success) return { kind: 'event', eventId: callback.data.event_id, event: callback.data.event };
  const other = otherEnvelope.safeParse(payload);
  if (other.success && other.data.type !== 'url_verification' && other.data.type !== 'event_callback')
    return { kind: 'other', type: other.data.type };
  return null;
}

/** Slack escapes exactly these three in message text. */
function decodeText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * A human's reply in a thread, or why the event is not one: a top-level message, an edit or deletion (any
 * subtype but `thread_broadcast`), anything a bot posted (the-loop's own mirror included).
 */
export function threadReplyOf(eventId: string, event: unknown): ChannelReply | { ignored: string } {
  const parsed = messageEvent.safeParse(event);
  if (!parsed.success) return { ignored: 'not a message event' };
  const m = parsed.data;
  if (m.bot_id !== undefined || m.subtype === 'bot_message') return { ignored: 'posted by a bot' };
  if (m.subtype !== undefined && m.subtype !== 'thread_broadcast') return { ignored: `message ${m.subtype}` };
  if (!m.thread_ts || m.thread_ts === m.ts) return { ignored: 'not a thread reply' };
  if (!m.user) return { ignored: 'no user' };
  return {
    eventId,
    threadId: slackThreadId({ channel: m.channel, ts: m.thread_ts }),
    channel: m.channel,
    threadTs: m.thread_ts,
    ts: m.ts,
    user: m.user,
    text: decodeText(m.text ?? ''),
  };
}

/**
 * Authorization is the config's Slack member list alone (a Slack user maps to no GitHub permission). An
 * authorized reply that is exactly a keyword line (`the-loop pause`) is that keyword; any other authorized
 * reply is delivered; an unauthorized one is never pasted anywhere.
 */
export function classifyReply(
  reply: ChannelReply,
  authorizedUsers: readonly string[],
): ChannelInbound | { untrusted: true } {
  if (!authorizedUsers.includes(reply.user)) return { untrusted: true };
  const text = reply.text.trim();
  const command = text.includes('\n') ? null : parseKeyword(text);
  return command ? { kind: 'keyword', command, reply } : { kind: 'deliver', reply };
}
