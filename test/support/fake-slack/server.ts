import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that speaks the Slack Web API methods the channel uses (chat.postMessage,
 * chat.getPermalink, conversations.replies) over in-memory channels the test controls, with a log of every
 * call and scripted failures: a 429 with Retry-After, or a 5xx.
 */
export interface FakeSlackMessage {
  ts: string;
  text: string;
  threadTs: string | null;
  user: string | null;
  botId: string | null;
}

export interface FakeSlackChannel {
  id: string;
  name: string;
  messages: FakeSlackMessage[];
}

export interface FakeSlackCall {
  method: string;
  args: Record<string, string>;
  /** The bearer token the call carried. */
  token: string | null;
  status: number;
}

export type ScriptedFailure = { status: 429; retryAfterS: number } | { status: 500 | 502 | 503 };

export const FAKE_SLACK_TOKEN = 'xoxb-fake-slack-token';
export const FAKE_SLACK_BOT = { user: 'U0THELOOP', botId: 'B0THELOOP' };

export class FakeSlack {
  readonly channels = new Map<string, FakeSlackChannel>();
  readonly calls: FakeSlackCall[] = [];
  /** Per method: failures answered in order, one per call, before the method works again. */
  readonly script = new Map<string, ScriptedFailure[]>();
  /** Per method: a failure answered to every call until cleared. */
  readonly failing = new Map<string, ScriptedFailure>();
  readonly domain = 'the-loop-test.slack.com';
  private server: Server | null = null;
  private port = 0;
  private clock = 1_750_000_000;
  private sequence = 0;

  constructor(readonly token: string = FAKE_SLACK_TOKEN) {}

  /** The `slackApiUrl` to hand to the WebClient. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  addChannel(id: string, name: string): FakeSlackChannel {
    const channel: FakeSlackChannel = { id, name, messages: [] };
    this.channels.set(id, channel);
    return channel;
  }

  /** Top-level messages: the threads opened. */
  parents(channelId: string): FakeSlackMessage[] {
    return (this.channels.get(channelId)?.messages ?? []).filter((m) => m.threadTs === null);
  }

  replies(channelId: string, threadTs: string): FakeSlackMessage[] {
    return (this.channels.get(channelId)?.messages ?? []).filter((m) => m.threadTs === threadTs);
  }

  /** A human replying in a thread (what the Events API would then report). */
  addReply(channelId: string, threadTs: string, user: string, text: string): FakeSlackMessage {
    const message: FakeSlackMessage = { ts: this.nextTs(), text, threadTs, user, botId: null };
    this.channel(channelId)?.messages.push(message);
    return message;
  }

  deleteMessage(channelId: string, ts: string): void {
    const channel = this.channels.get(channelId);
    if (channel) channel.messages = channel.messages.filter((m) => m.ts !== ts);
  }

  callsTo(method: string): FakeSlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  permalink(channelId: string, ts: string): string {
    return `https://${this.domain}/archives/${channelId}/p${ts.replace('.', '')}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private nextTs(): string {
    this.sequence++;
    return `${this.clock + this.sequence}.${String(this.sequence).padStart(6, '0')}`;
  }

  private channel(idOrName: string): FakeSlackChannel | undefined {
    const name = idOrName.replace(/^#/, '');
    return this.channels.get(name) ?? [...this.channels.values()].find((c) => c.name === name);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = (req.url ?? '').split('?')[0]?.replace(/^\/api\//, '') ?? '';
    const type = req.headers['content-type'] ?? '';
    const args: Record<string, string> = {};
    if (type.startsWith('application/json')) {
      for (const [k, v] of Object.entries(JSON.parse(raw || '{}') as Record<string, unknown>))
        args[k] = typeof v === 'string' ? v : JSON.stringify(v);
    } else {
      for (const [k, v] of new URLSearchParams(raw)) args[k] = v;
    }
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : (args.token ?? null);
    delete args.token;

    const failure = this.script.get(method)?.shift() ?? this.failing.get(method);
    if (failure) {
      this.calls.push({ method, args, token, status: failure.status });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (failure.status === 429) headers['retry-after'] = String(failure.retryAfterS);
      res.writeHead(failure.status, headers);
      res.end(
        JSON.stringify({ ok: false, error: failure.status === 429 ? 'ratelimited' : 'internal_error' }),
      );
      return;
    }
    this.calls.push({ method, args, token, status: 200 });
    const answer = token === this.token ? this.answer(method, args) : { ok: false, error: 'invalid_auth' };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(answer));
  }

  private answer(method: string, args: Record<string, string>): Record<string, unknown> {
    const channel = this.channel(args.channel ?? '');
    if (!channel) return { ok: false, error: 'channel_not_found' };
    switch (method) {
      case 'chat.postMessage': {
        if (!args.text) return { ok: false, error: 'no_text' };
        const threadTs = args.thread_ts ?? null;
        if (threadTs && !channel.messages.some((m) => m.ts === threadTs))
          return { ok: false, error: 'thread_not_found' };
        const message: FakeSlackMessage = {
          ts: this.nextTs(),
          text: args.text,
          threadTs,
          user: FAKE_SLACK_BOT.user,
          botId: FAKE_SLACK_BOT.botId,
        };
        channel.messages.push(message);
        return { ok: true, channel: channel.id, ts: message.ts, message: this.shape(message) };
      }
      case 'chat.getPermalink': {
        const ts = args.message_ts ?? '';
        if (!channel.messages.some((m) => m.ts === ts)) return { ok: false, error: 'message_not_found' };
        return { ok: true, channel: channel.id, permalink: this.permalink(channel.id, ts) };
      }
      case 'conversations.replies': {
        const ts = args.ts ?? '';
        const parent = channel.messages.find((m) => m.ts === ts && m.threadTs === null);
        if (!parent) return { ok: false, error: 'thread_not_found' };
        const limit = Number(args.limit ?? 1000);
        const thread = [parent, ...this.replies(channel.id, ts)].slice(0, limit);
        return { ok: true, messages: thread.map((m) => this.shape(m)), has_more: false };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private shape(m: FakeSlackMessage): Record<string, unknown> {
    return {
      type: 'message',
      ts: m.ts,
      text: m.text,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      ...(m.user ? { user: m.user } : {}),
      ...(m.botId ? { bot_id: m.botId } : {}),
    };
  }
}
