import { createHmac } from 'node:crypto';

/**
 * Events API request bodies of the real shape (https://api.slack.com/apis/events-api), and the signature
 * headers Slack sends with them.
 */
export const TEAM = 'T0THELOOP';
export const APP = 'A0THELOOP';

export function urlVerification(challenge: string): Record<string, unknown> {
  return { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' };
}

export interface MessageEventInput {
  eventId: string;
  channel: string;
  user?: string;
  text: string;
  ts: string;
  threadTs?: string;
  botId?: string;
  subtype?: string;
}

/** An event_callback carrying a `message` event (message.channels), as a reply in a thread when threadTs is set. */
export function messageEvent(input: MessageEventInput): Record<string, unknown> {
  const seconds = Number(input.ts.split('.')[0]);
  return {
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: TEAM,
    context_team_id: TEAM,
    context_enterprise_id: null,
    api_app_id: APP,
    event: {
      type: 'message',
      ...(input.subtype ? { subtype: input.subtype } : {}),
      ...(input.user ? { user: input.user } : {}),
      ...(input.botId ? { bot_id: input.botId } : {}),
      text: input.text,
      ts: input.ts,
      ...(input.threadTs ? { thread_ts: input.threadTs, parent_user_id: 'U0THELOOP' } : {}),
      team: TEAM,
      channel: input.channel,
      event_ts: input.ts,
      channel_type: 'channel',
      ...(input.user && !input.botId ? { client_msg_id: `c-${input.eventId}` } : {}),
      blocks: [
        {
          type: 'rich_text',
          block_id: 'b1',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: input.text }] }],
        },
      ],
    },
    type: 'event_callback',
    event_id: input.eventId,
    event_time: seconds,
    authorizations: [
      {
        enterprise_id: null,
        team_id: TEAM,
        user_id: 'U0THELOOP',
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${input.eventId}`,
  };
}

/** The headers Slack signs a request with: `v0=` HMAC-SHA256 of `v0:{timestamp}:{body}`. */
export function slackHeaders(
  secret: string,
  body: string | Buffer,
  timestampS: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const timestamp = String(timestampS);
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex');
  return {
    'content-type': 'application/json',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': `v0=${signature}`,
  };
}
