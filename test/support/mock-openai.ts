/**
 * A mock of the OpenAI Responses API, good enough for the REAL Codex CLI (`codex exec`) to run offline against it
 * through a custom model provider (see codexEnv): POST /v1/responses answered with SSE (response.created,
 * response.output_item.added, response.output_text.delta, response.output_item.done, response.completed with usage).
 * Anything else is a 404.
 *
 * Scripting. Every POST /v1/responses takes the next reply from the queue (`reply()`/`replies`), or asks `respond`,
 * or falls back to the text "done". A reply with `calls` returns `function_call` items (e.g. `exec_command`): the
 * real codex runs them and sends their output back in the next request, which takes the next reply — script a tool
 * turn as [calls reply, text reply]. Every request is logged; `inputText()` flattens a request's `input` for
 * assertions such as "the earlier turn was resent on resume".
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface MockResponsesUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export interface MockFunctionCall {
  name: string;
  /** JSON-encoded by the mock. */
  arguments: Record<string, unknown>;
  callId?: string;
}

export type MockResponsesReply =
  | { text: string; calls?: MockFunctionCall[]; usage?: Partial<MockResponsesUsage> }
  | { calls: MockFunctionCall[]; text?: string; usage?: Partial<MockResponsesUsage> }
  /** A failed response (`response.failed`), or an HTTP error when `status` is set. */
  | { failure: string; status?: number };

export interface ResponsesBody {
  model?: string;
  instructions?: string;
  input?: InputItem[];
  tools?: { type: string; name?: string }[];
  stream?: boolean;
  previous_response_id?: string;
  [key: string]: unknown;
}

export interface InputItem {
  type?: string;
  role?: string;
  content?: string | { type: string; text?: string }[];
  output?: unknown;
  call_id?: string;
  name?: string;
  arguments?: string;
  [key: string]: unknown;
}

export interface LoggedResponsesRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: ResponsesBody | null;
  at: number;
}

export interface MockOpenAI {
  /** http://127.0.0.1:<port>/v1 — the provider's base_url. */
  baseUrl: string;
  requests: LoggedResponsesRequest[];
  reply(...replies: MockResponsesReply[]): void;
  /** Bodies of the POST /v1/responses requests so far. */
  responseCalls(): ResponsesBody[];
  close(): Promise<void>;
}

export const DEFAULT_RESPONSES_USAGE: MockResponsesUsage = {
  input_tokens: 100,
  cached_input_tokens: 0,
  output_tokens: 20,
  reasoning_output_tokens: 0,
};

/** All text a request's input carries: messages, function-call arguments and outputs. */
export function inputText(body: ResponsesBody | null): string {
  const parts: string[] = [];
  for (const item of body?.input ?? []) {
    if (typeof item.content === 'string') parts.push(item.content);
    else if (Array.isArray(item.content)) for (const c of item.content) if (c.text) parts.push(c.text);
    if (typeof item.arguments === 'string') parts.push(item.arguments);
    if (item.output !== undefined)
      parts.push(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
  }
  return parts.join('\n');
}

export async function startMockOpenAI(
  options: {
    replies?: MockResponsesReply[];
    respond?: (body: ResponsesBody, index: number) => MockResponsesReply | null | undefined;
  } = {},
): Promise<MockOpenAI> {
  const queue: MockResponsesReply[] = [...(options.replies ?? [])];
  const requests: LoggedResponsesRequest[] = [];
  let index = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const body = parseJson(raw) as ResponsesBody | null;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    requests.push({ method, path, headers: req.headers, body, at: Date.now() });
    if (method === 'POST' && path === '/v1/responses') {
      const reply = queue.shift() ?? options.respond?.(body ?? {}, index) ?? { text: 'done' };
      index += 1;
      if ('failure' in reply && reply.status) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: reply.failure, type: 'invalid_request_error', code: null } }),
        );
        return;
      }
      return stream(res, reply, body?.model ?? 'gpt-5.5');
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${method} ${path}` } }));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    responseCalls: () =>
      requests.filter((r) => r.method === 'POST' && r.path === '/v1/responses').map((r) => r.body ?? {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function stream(res: ServerResponse, reply: MockResponsesReply, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: Record<string, unknown>): void => {
    res.write(`event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const id = `resp_${randomUUID().replace(/-/g, '')}`;
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  send({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  if ('failure' in reply) {
    send({
      type: 'response.failed',
      response: { ...base, status: 'failed', error: { code: 'server_error', message: reply.failure } },
    });
    res.end();
    return;
  }
  const output: Record<string, unknown>[] = [];
  if (reply.text !== undefined) {
    const itemId = `msg_${randomUUID().replace(/-/g, '')}`;
    const index = output.length;
    send({
      type: 'response.output_item.added',
      output_index: index,
      item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] },
    });
    send({
      type: 'response.output_text.delta',
      item_id: itemId,
      output_index: index,
      content_index: 0,
      delta: reply.text,
    });
    const item = {
      type: 'message',
      id: itemId,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    };
    send({ type: 'response.output_item.done', output_index: index, item });
    output.push(item);
  }
  for (const call of reply.calls ?? []) {
    const index = output.length;
    const item = {
      type: 'function_call',
      id: `fc_${randomUUID().replace(/-/g, '')}`,
      call_id: call.callId ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: 'completed',
    };
    send({ type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '' } });
    send({ type: 'response.output_item.done', output_index: index, item });
    output.push(item);
  }
  const usage = { ...DEFAULT_RESPONSES_USAGE, ...reply.usage };
  send({
    type: 'response.completed',
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: usage.input_tokens,
        input_tokens_details: { cached_tokens: usage.cached_input_tokens },
        output_tokens: usage.output_tokens,
        output_tokens_details: { reasoning_tokens: usage.reasoning_output_tokens },
        total_tokens: usage.input_tokens + usage.output_tokens,
      },
    },
  });
  res.end();
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

/** The env var the mock provider reads its (dummy) key from; codex sends it as a Bearer token. */
export const MOCK_OPENAI_KEY_ENV = 'MOCK_OPENAI_API_KEY';

/** The real codex CLI (the pinned devDependency): its Node launcher, which finds the platform's native binary. */
export function realCodexBin(): string {
  return join(dirname(require.resolve('@openai/codex/package.json')), 'bin', 'codex.js');
}

/**
 * The environment that runs the real codex offline against `mock`: a scratch HOME and CODEX_HOME whose config.toml
 * selects a custom provider at the mock (never the built-in `openai` provider, which ignores OPENAI_BASE_URL and
 * tries WebSockets first), never asks for approval, writes only inside the workspace, and makes no other traffic.
 * TMPDIR outside /tmp avoids a harmless warning. Pass `codexHome` to share one between runs: `codex exec resume`
 * finds the thread there.
 */
export function codexEnv(
  mock: { baseUrl: string },
  options: { codexHome?: string; codexRetries?: boolean } = {},
): { env: Record<string, string>; codexHome: string } {
  const root = options.codexHome ? dirname(options.codexHome) : mkdtempSync(join(tmpdir(), 'codex-home-'));
  const codexHome = options.codexHome ?? join(root, '.codex');
  const tmp = join(root, 'tmp');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      // no sandbox_mode: codex's own default (read-only); the-loop passes --sandbox workspace-write itself
      '',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${mock.baseUrl}"`,
      `env_key = "${MOCK_OPENAI_KEY_ENV}"`,
      'wire_api = "responses"',
      // none, unless a test is about what the-loop does while codex retries (its defaults: 4 and 5)
      ...(options.codexRetries ? [] : ['request_max_retries = 0', 'stream_max_retries = 0']),
      '',
      '[features]',
      'plugins = false',
      'unbounded_connection_retries = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[otel]',
      'metrics_exporter = "none"',
      '',
    ].join('\n'),
  );
  return {
    codexHome,
    env: {
      HOME: root,
      CODEX_HOME: codexHome,
      TMPDIR: tmp,
      [MOCK_OPENAI_KEY_ENV]: 'sk-mock-openai-key-for-tests',
    },
  };
}
