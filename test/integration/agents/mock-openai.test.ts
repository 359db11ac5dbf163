import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  codexEnv,
  inputText,
  realCodexBin,
  startMockOpenAI,
  type MockOpenAI,
} from '../../support/mock-openai';

function runCodex(args: string[], prompt: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; events: Record<string, unknown>[]; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(realCodexBin(), args, { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        const events = stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        resolve({ code, events, stderr });
      });
      child.stdin.end(prompt);
    },
  );
}

/** The Responses API mock against the real Codex CLI. */
describe('mock OpenAI Responses API with the real codex exec', () => {
  let mock: MockOpenAI;
  let env: Record<string, string>;
  let cwd: string;

  beforeEach(async () => {
    mock = await startMockOpenAI();
    env = codexEnv(mock).env;
    cwd = mkdtempSync(join(tmpdir(), 'mock-openai-cwd-'));
    execFileSync('git', ['init', '-q'], { cwd });
  });
  afterEach(() => mock.close());

  test('a function call runs the real command; usage is cumulative over the thread across resume', async () => {
    mock.reply(
      { calls: [{ name: 'exec_command', arguments: { cmd: 'touch made-by-codex.txt' } }] },
      { text: 'made it', usage: { input_tokens: 1000, output_tokens: 300 } },
    );
    const first = await runCodex(
      ['exec', '--json', '--sandbox', 'workspace-write', '-'],
      'make a file',
      cwd,
      env,
    );
    expect(first.code).toBe(0);
    expect(existsSync(join(cwd, 'made-by-codex.txt'))).toBe(true);
    const thread = first.events.find((e) => e['type'] === 'thread.started')?.['thread_id'];
    expect(typeof thread).toBe('string');
    expect(first.events).toContainEqual({
      type: 'item.completed',
      item: expect.objectContaining({ text: 'made it' }),
    });
    // The command's output went back in the second request.
    expect(mock.responseCalls()[1]?.input?.some((item) => item.type === 'function_call_output')).toBe(true);
    const firstUsage = first.events.find((e) => e['type'] === 'turn.completed')?.['usage'] as Record<
      string,
      number
    >;
    expect(firstUsage['input_tokens']).toBe(1100); // the call's 100 (default) + 1000

    mock.reply({ text: 'second answer', usage: { input_tokens: 500, output_tokens: 50 } });
    const second = await runCodex(
      ['exec', '--json', '--sandbox', 'workspace-write', 'resume', String(thread), '-'],
      'again',
      cwd,
      env,
    );
    expect(second.code).toBe(0);
    expect(inputText(mock.responseCalls()[2] ?? null)).toContain('make a file');
    const secondUsage = second.events.find((e) => e['type'] === 'turn.completed')?.['usage'] as Record<
      string,
      number
    >;
    expect(secondUsage['input_tokens']).toBe(1600);
  });
});
