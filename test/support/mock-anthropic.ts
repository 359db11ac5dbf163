/**
 * A mock of the Anthropic Messages API, good enough for the REAL Claude Code CLI (`claude -p` and the TUI) to run
 * offline against it: POST /v1/messages (SSE when `stream: true`, else JSON), POST /v1/messages/count_tokens,
 * GET /v1/models; anything else (the CLI's `HEAD /` probe included) is a 404.
 *
 * Scripting. The CLI sends two kinds of /v1/messages calls:
 * - agent calls: the conversation itself. They carry `tools` (Read, Write, Bash, …). Each one takes the next reply
 *   from the queue (`reply()`/`replies`), or asks `respond`, or falls back to the text "done".
 * - side calls: title/topic generation, quota probes and the like. They carry no tools. They never consume the queue:
 *   `sideRespond` answers them (default: a short text), so a test's script does not shift when the CLI adds one.
 *   (2.1.197 with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 sent none, in `-p` or in the TUI; the routing is for
 *   versions and settings that do.)
 * A `tool_use` reply makes the real CLI run its real tool and send the `tool_result` in the next agent call, which
 * takes the next reply: script a tool turn as [toolUse reply, text reply].
 *
 * Usage numbers in a reply drive the CLI's cost computation (it prices tokens by model), so budget tests script them.
 * Every request is logged (`requests`); `agentCalls()` gives the agent calls' bodies for assertions such as "the text
 * of the earlier turn is in this call's messages".
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface MockUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface MockToolUse {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/** When the reply is sent: after `delayMs`, and once `until` (a test's gate) has settled. */
interface ReplyTiming {
  delayMs?: number;
  until?: Promise<unknown>;
}

export type MockReply = ReplyTiming &
  (
    | { text: string; toolUses?: MockToolUse[]; usage?: Partial<MockUsage> }
    | { toolUses: MockToolUse[]; text?: string; usage?: Partial<MockUsage> }
    | {
        /** An HTTP error: the CLI turns it into `is_error: true` + `api_error_status`. */
        status: number;
        errorType?: string;
        message?: string;
        /**
         * Sent as x-should-retry: false by default, which keeps the CLI from retrying. `absent`: no such header, as
         * the real API answers a refused credential (claude then retries a 401 ten times, about three minutes).
         */
        retryHeader?: 'false' | 'absent';
      }
  );

export interface MessagesCall {
  /** 0-based index among agent calls (or among side calls, for a side call). */
  index: number;
  kind: 'agent' | 'side';
  body: MessagesBody;
  headers: IncomingMessage['headers'];
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: string | { type: string; text?: string }[];
  messages?: { role: string; content: string | ContentBlock[] }[];
  tools?: { name: string }[];
  max_tokens?: number;
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  content?: string | ContentBlock[];
  tool_use_id?: string;
  is_error?: boolean;
  [key: string]: unknown;
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or null. */
  body: MessagesBody | null;
  kind: 'agent' | 'side' | 'count_tokens' | 'models' | 'other';
  at: number;
}

export interface MockAnthropicOptions {
  /** Initial queue of replies to agent calls. */
  replies?: MockReply[];
  /**
   * Answers an agent call when the queue is empty (before the "done" fallback); return null to fall through. A
   * promise holds the reply (the CLI waits on the open request): how a test makes a turn last until it says so.
   */
  respond?: (call: MessagesCall) => MockReply | null | undefined | Promise<MockReply | null | undefined>;
  /** Answers side calls (no tools); default: the text "Mock title". */
  sideRespond?: (call: MessagesCall) => MockReply;
  /** The model id reported when the request names none. */
  model?: string;
}

export interface MockAnthropic {
  /** http://127.0.0.1:<port> — ANTHROPIC_BASE_URL. */
  url: string;
  port: number;
  requests: LoggedRequest[];
  /** Appends replies to the agent-call queue. */
  reply(...replies: MockReply[]): void;
  /** Replaces the agent-call function (used when the queue is empty). */
  setRespond(respond: MockAnthropicOptions['respond']): void;
  /** Bodies of the agent calls so far, in order. */
  agentCalls(): MessagesBody[];
  close(): Promise<void>;
}

export const DEFAULT_USAGE: MockUsage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** All text a request body carries in its messages: text blocks and tool results, for "was X sent" assertions. */
export function messagesText(body: MessagesBody | null): string {
  const parts: string[] = [];
  const walk = (content: string | ContentBlock[] | undefined): void => {
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (typeof block.text === 'string') parts.push(block.text);
        if (block.content !== undefined) walk(block.content);
        if (block.type === 'tool_use') parts.push(JSON.stringify(block['input']));
      }
    }
  };
  for (const message of body?.messages ?? []) walk(message.content);
  return parts.join('\n');
}

/** The text of the system prompt, however the CLI shaped it. */
export function systemText(body: MessagesBody | null): string {
  const system = body?.system;
  if (typeof system === 'string') return system;
  return (system ?? []).map((block) => block.text ?? '').join('\n');
}

/** The tool results in a body's last user message (what the CLI's tools produced for the previous reply). */
export function lastToolResults(body: MessagesBody | null): ContentBlock[] {
  const last = body?.messages?.[body.messages.length - 1];
  if (!last || typeof last.content === 'string') return [];
  return last.content.filter((block) => block.type === 'tool_result');
}

/**
 * The reply that asks for a Bash call writing a marker file, when the newest `RUN-BASH <file>` in the conversation
 * names one (a call that needs a person's approval); null otherwise.
 */
export function runBashReply(body: MessagesBody | null): MockReply | null {
  const marker = [...messagesText(body).matchAll(/RUN-BASH (\S+)/g)].at(-1)?.[1];
  if (!marker) return null;
  const input = { command: `sh -c 'echo ran > ${marker}'`, description: 'Write a marker' };
  return { toolUses: [{ name: 'Bash', input }] };
}

export async function startMockAnthropic(options: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const queue: MockReply[] = [...(options.replies ?? [])];
  let respond = options.respond;
  const requests: LoggedRequest[] = [];
  let agentIndex = 0;
  let sideIndex = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const body = parseJson(raw) as MessagesBody | null;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const logged: LoggedRequest = { method, path, headers: req.headers, body, kind: 'other', at: Date.now() };
    requests.push(logged);

    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      logged.kind = 'count_tokens';
      return json(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
    }
    if (method === 'GET' && path.startsWith('/v1/models')) {
      logged.kind = 'models';
      const model = modelEntry(options.model ?? 'claude-sonnet-4-5-20250929');
      if (path === '/v1/models') {
        return json(res, 200, { data: [model], has_more: false, first_id: model.id, last_id: model.id });
      }
      return json(res, 200, { ...model, id: decodeURIComponent(path.slice('/v1/models/'.length)) });
    }
    if (method === 'POST' && path === '/v1/messages') {
      const isAgent = Array.isArray(body?.tools) && body.tools.length > 0;
      logged.kind = isAgent ? 'agent' : 'side';
      const call: MessagesCall = {
        index: isAgent ? agentIndex++ : sideIndex++,
        kind: logged.kind,
        body: body ?? {},
        headers: req.headers,
      };
      let reply: MockReply;
      if (isAgent) {
        reply = queue.shift() ?? (await respond?.(call)) ?? { text: 'done' };
      } else {
        reply = options.sideRespond?.(call) ?? { text: 'Mock title' };
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      await reply.until;
      if ('status' in reply) {
        // x-should-retry: false keeps the SDK from retrying (and backing off) on statuses it would retry.
        if (reply.retryHeader !== 'absent') res.setHeader('x-should-retry', 'false');
        return json(res, reply.status, {
          type: 'error',
          error: {
            type: reply.errorType ?? errorTypeFor(reply.status),
            message: reply.message ?? 'mock error',
          },
        });
      }
      const message = buildMessage(reply, body?.model ?? options.model ?? 'claude-sonnet-4-5-20250929');
      if (body?.stream) return stream(res, message);
      return json(res, 200, message);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      method === 'HEAD' ? undefined : JSON.stringify({ type: 'error', error: { type: 'not_found_error' } }),
    );
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        json(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    reply: (...replies) => void queue.push(...replies),
    setRespond: (fn) => {
      respond = fn;
    },
    agentCalls: () => requests.filter((r) => r.kind === 'agent').map((r) => r.body ?? {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface BuiltMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: 'end_turn' | 'tool_use';
  stop_sequence: null;
  usage: MockUsage;
}

function buildMessage(reply: Exclude<MockReply, { status: number }>, model: string): BuiltMessage {
  const content: ContentBlock[] = [];
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  for (const use of reply.toolUses ?? []) {
    content.push({
      type: 'tool_use',
      id: use.id ?? `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      name: use.name,
      input: use.input,
    });
  }
  return {
    id: `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.toolUses?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { ...DEFAULT_USAGE, ...reply.usage },
  };
}

function stream(res: ServerResponse, message: BuiltMessage): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': `req_${randomUUID().slice(0, 8)}`,
  });
  const send = (event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const { usage } = message;
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  send('ping', { type: 'ping' });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text ?? '' },
      });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block['id'], name: block['name'], input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function modelEntry(id: string) {
  return { type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' };
}

function errorTypeFor(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return 'api_error';
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export const MOCK_API_KEY =
  'sk-ant-api03-mock-key-for-tests-0000000000000000000000000000000000000000-AAAAAAAA';

/**
 * The real claude CLI (the pinned devDependency). The npm package's `bin/claude.exe` is a stub until its postinstall
 * copies the platform's native binary over it, and an install with --ignore-scripts leaves the stub (and no
 * node_modules/.bin): so the native binary is taken straight from its platform package.
 */
export function realClaudeBin(): string {
  const pkg = `@anthropic-ai/claude-code-${process.platform}-${process.arch}${muslSuffix()}`;
  try {
    return join(
      dirname(require.resolve(`${pkg}/package.json`)),
      process.platform === 'win32' ? 'claude.exe' : 'claude',
    );
  } catch {
    return join(__dirname, '..', '..', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
  }
}

function muslSuffix(): string {
  if (process.platform !== 'linux') return '';
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return report.header?.glibcVersionRuntime === undefined ? '-musl' : '';
}

/** No telemetry, update checks or error reports: the real CLI under test talks to the mock alone. */
export const QUIET_CLAUDE_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
} as const;

/**
 * The environment that runs the real claude offline against `mock`: a scratch HOME whose ~/.claude.json skips the
 * first-run dialogs (onboarding, approval of the API key, and the TUI's "do you trust this folder" for each of
 * `trustedDirs`), the mock's URL, a dummy key, and no telemetry, autoupdate, error reporting or other nonessential
 * traffic. Pass `home` to share one HOME between runs: a conversation's transcript lives under ~/.claude/projects,
 * so `--resume` needs the same HOME (and the same cwd). `allowedTools` are allow rules in the HOME's settings.json
 * (e.g. ['Bash']: acceptEdits, the goal loops' default, still asks before a shell command).
 */
export function claudeEnv(
  mock: { url: string },
  options: { home?: string; trustedDirs?: string[]; allowedTools?: string[] } = {},
): { env: Record<string, string>; home: string } {
  const dir = options.home ?? mkdtempSync(join(tmpdir(), 'claude-home-'));
  mkdirSync(join(dir, '.claude'), { recursive: true });
  if (options.allowedTools) {
    // The user's own allow rules (~/.claude/settings.json), as a user who lets the agent run shell commands has them.
    writeFileSync(
      join(dir, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: options.allowedTools } }),
    );
  }
  const projects = Object.fromEntries(
    (options.trustedDirs ?? []).map((trusted) => [
      trusted,
      { hasTrustDialogAccepted: true, allowedTools: [] },
    ]),
  );
  writeFileSync(
    join(dir, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      // The CLI records an approved key by its last 20 characters.
      customApiKeyResponses: { approved: [MOCK_API_KEY.slice(-20)], rejected: [] },
      autoUpdates: false,
      projects,
    }),
  );
  return {
    home: dir,
    env: {
      HOME: dir,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: MOCK_API_KEY,
      ...QUIET_CLAUDE_ENV,
    },
  };
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The parsed JSON result line of `-p --output-format json`, or null. */
  json: Record<string, unknown> | null;
}

/** Runs the real `claude -p --output-format json <args>` with `prompt` on stdin (async: the mock shares this loop). */
export function runRealClaude(
  args: string[],
  options: { prompt: string; cwd: string; env: Record<string, string> },
): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(realClaudeBin(), ['-p', '--output-format', 'json', ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr, json: parseJson(stdout.trim()) as Record<string, unknown> | null });
    });
    child.stdin.end(options.prompt);
  });
}
