import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  claudeEnv,
  lastToolResults,
  messagesText,
  runRealClaude,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';

/** The mock against the real Claude Code CLI: what the other tests rely on it for. */
describe('mock Anthropic API with the real claude -p', () => {
  let mock: MockAnthropic;
  let env: Record<string, string>;
  let cwd: string;

  beforeEach(async () => {
    mock = await startMockAnthropic();
    env = claudeEnv(mock).env;
    cwd = mkdtempSync(join(tmpdir(), 'mock-anthropic-cwd-'));
  });
  afterEach(() => mock.close());

  test('a text reply becomes the result; the scripted usage drives tokens and cost', async () => {
    mock.reply({ text: 'hello from the mock', usage: { input_tokens: 1000, output_tokens: 500 } });
    const run = await runRealClaude([], { prompt: 'say hello', cwd, env });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'hello from the mock',
      usage: { input_tokens: 1000, output_tokens: 500 },
    });
    expect(run.json?.['total_cost_usd']).toBeGreaterThan(0);
    const calls = mock.agentCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.stream).toBe(true);
    expect(messagesText(calls[0] ?? null)).toContain('say hello');
  });

  test('a tool_use reply runs the real tool; its result comes back in the next call', async () => {
    const file = join(cwd, 'note.txt');
    mock.reply(
      {
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'written by the real Write tool' } }],
      },
      { text: 'wrote it' },
    );
    const run = await runRealClaude(['--permission-mode', 'acceptEdits'], {
      prompt: 'write a note',
      cwd,
      env,
    });
    expect(run.json).toMatchObject({ subtype: 'success', result: 'wrote it', permission_denials: [] });
    expect(readFileSync(file, 'utf8')).toBe('written by the real Write tool');
    const results = lastToolResults(mock.agentCalls()[1] ?? null);
    expect(results).toHaveLength(1);
    expect(results[0]?.is_error).toBeFalsy();
  });

  test('without a permission mode the real CLI denies Write and still says success', async () => {
    const file = join(cwd, 'denied.txt');
    mock.reply(
      { toolUses: [{ name: 'Write', input: { file_path: file, content: 'x' } }] },
      { text: 'tried' },
    );
    const run = await runRealClaude([], { prompt: 'write', cwd, env });
    expect(run.json).toMatchObject({
      subtype: 'success',
      is_error: false,
      permission_denials: [{ tool_name: 'Write' }],
    });
    expect(existsSync(file)).toBe(false);
  });

  test('--resume sends the earlier turn in the next request', async () => {
    mock.reply({ text: 'first answer: pineapple' });
    const first = await runRealClaude([], { prompt: 'first question', cwd, env });
    const sessionId = String(first.json?.['session_id']);
    mock.reply({ text: 'second answer' });
    const second = await runRealClaude(['--resume', sessionId], { prompt: 'second question', cwd, env });
    expect(second.json).toMatchObject({ result: 'second answer', session_id: sessionId });
    const text = messagesText(mock.agentCalls()[1] ?? null);
    expect(text).toContain('first question');
    expect(text).toContain('first answer: pineapple');
    expect(text).toContain('second question');
  });

  test('an HTTP error status reaches the CLI as api_error_status', async () => {
    mock.reply({ status: 403, message: 'Forbidden: organization disabled' });
    const run = await runRealClaude([], { prompt: 'hi', cwd, env });
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ is_error: true, api_error_status: 403 });
    expect(String(run.json?.['result'])).toContain('Forbidden: organization disabled');
  });

  test('plain JSON, count_tokens, models and the HEAD probe answer as the API does', async () => {
    mock.reply({ text: 'not streamed', usage: { input_tokens: 7 } });
    const headers = { 'content-type': 'application/json' };
    const message = (await (
      await fetch(`${mock.url}/v1/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [], tools: [{ name: 'Read' }] }),
      })
    ).json()) as Record<string, unknown>;
    expect(message).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'not streamed' }],
      usage: { input_tokens: 7 },
    });
    const count = await fetch(`${mock.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const models = (await (await fetch(`${mock.url}/v1/models`)).json()) as { data: unknown[] };
    expect(models.data.length).toBeGreaterThan(0);
    expect((await fetch(mock.url, { method: 'HEAD' })).status).toBe(404);
    expect(mock.requests.map((r) => r.kind)).toEqual(['agent', 'count_tokens', 'models', 'other']);
  });
});
