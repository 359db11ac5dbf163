import * as fs from 'node:fs';
import * as path from 'node:path';

import { getHarness } from '../../../src/harness';
import { parseCodexEvents } from '../../../src/harness/codex-output';
import { renderCommandLine, splitUsageLine } from '../../../src/harness/command';
import { cursorArgs } from '../../../src/harness/cursor';
import { makeFixture, type Fixture } from './harness-fixture';

jest.setTimeout(30000);
let fx: Fixture;
beforeEach(() => {
  fx = makeFixture();
});
afterEach(() => fx.cleanup());

function bin(name: string, body: string): string {
  const file = path.join(fx.root, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

test('getHarness knows four harnesses and rejects others', () => {
  expect(['claude', 'cursor', 'codex', 'command'].map((n) => getHarness(n).name)).toEqual([
    'claude',
    'cursor',
    'codex',
    'command',
  ]);
  expect(() => getHarness('gpt')).toThrow("unknown harness 'gpt' (known: claude, cursor, codex, command)");
});

describe('command harness', () => {
  const command = getHarness('command');

  test('quotes placeholders, reads the prompt on stdin, reports usage from the last JSON line', async () => {
    const req = fx.request({
      options: {
        commandLine:
          'cat {prompt_file}; echo; cat; echo; echo "$LOOPY_ROUTINE_ID"; echo \'{"usage":{"input_tokens":3},"cost_usd":0.5}\'',
      },
      prompt: "it's the prompt",
    });
    const result = await command.run(req);
    expect(result).toMatchObject({ success: true, error: null, exitCode: 0, conversationId: null });
    expect(result.text).toBe("do the thing\nit's the prompt\nworker\n");
    expect(result.usage).toMatchObject({ input_tokens: 3, cost_usd: 0.5 });
  });

  test('non-zero exit, 127 hint, missing command line', async () => {
    const failed = await command.run(
      fx.request({ options: { commandLine: 'echo out; echo oops >&2; exit 3' } }),
    );
    expect(failed).toMatchObject({
      success: false,
      text: 'out\n',
      exitCode: 3,
      error: 'command exited with code 3: oops',
    });
    const missing = await command.run(fx.request({ options: { commandLine: 'no-such-cmd-xyz' } }));
    expect(missing.error).toMatch(/^command exited with code 127: .*\(command not found\?\)$/);
    const none = await command.run(fx.request({ options: {} }));
    expect(none.error).toMatch(/needs a command line/);
  });

  test('renderCommandLine shell-quotes values', () => {
    const req = fx.request({ goalFile: "/tmp/a b/it's.md" });
    expect(renderCommandLine('x {goal_file} {unknown}', req)).toBe("x '/tmp/a b/it'\\''s.md' {unknown}");
  });

  test('splitUsageLine only takes a trailing usage object', () => {
    expect(splitUsageLine('a\n{"cost_usd":1}\n')).toMatchObject({ text: 'a\n', usage: { cost_usd: 1 } });
    expect(splitUsageLine('a\n{"other":1}\n')).toEqual({ text: 'a\n{"other":1}\n', usage: null });
    expect(splitUsageLine('{"usage":{"output_tokens":2}}')).toMatchObject({
      text: '',
      usage: { output_tokens: 2 },
    });
  });
});

describe('codex harness', () => {
  const codex = getHarness('codex');
  const events = [
    { type: 'thread.started', thread_id: 'th-1' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'i0', type: 'agent_message', text: 'from events' } },
    { type: 'turn.completed', usage: { input_tokens: 50, cached_input_tokens: 20, output_tokens: 9 } },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');

  test('reads the last message file, thread id and usage', async () => {
    const fake = bin(
      'codex',
      `cat > "$LOOPY_HARNESS_OUTPUT_DIR/stdin.txt"\nprintf 'final answer' > "$5"\ncat <<'JSONL'\n${events}\nJSONL`,
    );
    const req = fx.request({ options: { command: fake } });
    const result = await codex.run(req);
    expect(result).toMatchObject({ success: true, text: 'final answer', conversationId: 'th-1' });
    // codex's input_tokens count the cached ones; the ledger keeps them apart, as claude reports them
    expect(result.usage).toMatchObject({
      input_tokens: 30,
      cache_read_input_tokens: 20,
      output_tokens: 9,
      num_turns: 1,
    });
    expect(fs.readFileSync(path.join(req.outputDir, 'stdin.txt'), 'utf8')).toBe('do the thing');
  });

  test('turn.failed is a failure even with exit 0', () => {
    const parsed = parseCodexEvents(
      `${events}\n{"type":"turn.failed","error":{"message":"quota"}}\nnot json`,
    );
    expect(parsed).toMatchObject({ threadId: 'th-1', failure: 'quota', lastAgentMessage: 'from events' });
    // a failed turn reports no usage: the total is what turn.completed said last
    expect(parsed.usage).toMatchObject({ input_tokens: 30, cache_read_input_tokens: 20, output_tokens: 9 });
  });

  test('missing codex is a clear failure', async () => {
    const result = await codex.run(
      fx.request({ options: {}, env: { THE_LOOP_CODEX_BIN: 'no-such-codex-xyz' } }),
    );
    expect(result.error).toMatch(
      /^harness executable 'no-such-codex-xyz' not found on PATH — .*THE_LOOP_CODEX_BIN/,
    );
  });
});

describe('cursor harness', () => {
  test('uses the claude-shaped JSON result and resumes by chat id', async () => {
    const fake = bin(
      'cursor-agent',
      `cat >/dev/null\necho '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"ok","session_id":"chat-9"}'`,
    );
    const result = await getHarness('cursor').run(fx.request({ options: { command: fake } }));
    expect(result).toMatchObject({ success: true, text: 'ok', conversationId: 'chat-9' });
    expect(cursorArgs(fx.request({ conversation: { id: 'chat-9', resume: true }, options: {} }))).toEqual([
      '-p',
      '--output-format',
      'json',
      '--resume',
      'chat-9',
    ]);
  });
});
