import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { getHarness } from '../../../src/harness';
import { claudeArgs } from '../../../src/harness/claude';
import { parseClaudeStdout } from '../../../src/harness/claude-output';
import { isProcessGroupAlive, liveProcessGroupMembers } from '../../../src/harness/process-group';
import { claudeTranscriptFile } from '../../../src/harness/claude-transcript';
import {
  claudeEnv,
  messagesText,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { SIGTERM_IGNORING_HARNESS } from '../../support/recovery';
import { waitFor } from '../../support/wait';
import { makeFixture, type Fixture } from './harness-fixture';

/**
 * The claude adapter running the REAL claude CLI (print mode) against the mock Anthropic API: one mock for the file,
 * its replies queued per test; a scratch HOME whose settings allow Bash (for the tests of tool processes).
 */
jest.setTimeout(60000);
const claude = getHarness('claude');
let fx: Fixture;
let mock: MockAnthropic;
let env: Record<string, string>;
beforeAll(async () => {
  mock = await startMockAnthropic();
  env = claudeEnv(mock, { allowedTools: ['Bash'] }).env;
});
afterAll(() => mock.close());
beforeEach(() => {
  fx = makeFixture();
});
afterEach(() => fx.cleanup());

/** A request that runs the real claude, under acceptEdits (the goal loops' default). */
const request = (overrides: Parameters<Fixture['request']>[0] = {}) =>
  fx.request({
    env,
    options: { command: realClaudeBin(), permissionMode: 'acceptEdits' },
    ...overrides,
  });

/** Nothing of the group may still run; zombies left to a non-reaping init do not count (see isProcessGroupAlive). */
function expectGroupGone(pgid: number): void {
  expect(isProcessGroupAlive(pgid)).toBe(false);
  expect(liveProcessGroupMembers(pgid) ?? []).toEqual([]);
}

test('success: text, usage, files written by its tools, LOOPY_* in its environment and the prompt on stdin', async () => {
  const req = request();
  const envFile = path.join(req.cwd, 'env.txt');
  mock.reply(
    {
      toolUses: [
        { name: 'Write', input: { file_path: path.join(req.cwd, 'out', 'hello.txt'), content: 'hi' } },
        {
          name: 'Write',
          input: {
            file_path: req.controlFile,
            content: JSON.stringify({ state: 'stopped', reason: 'enough' }),
          },
        },
        {
          name: 'Bash',
          input: { command: `printf %s "$LOOPY_ITERATION_DIR" > ${envFile}`, description: 'env' },
        },
      ],
      usage: { input_tokens: 0, output_tokens: 0 },
    },
    {
      text: 'all done',
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_read_input_tokens: 7,
        cache_creation_input_tokens: 3,
      },
    },
  );
  let spawned: { pid: number; pgid: number } | null = null;
  const result = await claude.run({ ...req, onSpawn: (info) => (spawned = info) });
  expect(result).toMatchObject({
    success: true,
    text: 'all done',
    error: null,
    exitCode: 0,
    timedOut: false,
  });
  expect(result.permissionDenials ?? null).toBeNull();
  // The CLI's own numbers: the tokens it was sent, the cost and turn count it computed.
  const printed = parseClaudeStdout(fs.readFileSync(path.join(req.outputDir, 'stdout.txt'), 'utf8'));
  expect(result.usage).toMatchObject({
    input_tokens: 100,
    output_tokens: 20,
    cache_read_input_tokens: 7,
    cache_creation_input_tokens: 3,
    cost_usd: printed?.total_cost_usd,
    num_turns: printed?.num_turns,
  });
  expect(result.usage?.cost_usd).toBeGreaterThan(0);
  expect(spawned).not.toBeNull();
  expect(fs.readFileSync(path.join(req.cwd, 'out/hello.txt'), 'utf8')).toBe('hi');
  expect(JSON.parse(fs.readFileSync(req.controlFile, 'utf8'))).toEqual({
    state: 'stopped',
    reason: 'enough',
  });
  expect(fs.readFileSync(envFile, 'utf8')).toBe(req.iterationDir);
  expect(fs.existsSync(path.join(req.outputDir, 'stderr.txt'))).toBe(true);
  // the prompt went through stdin, not argv
  expect(claudeArgs(req).join(' ')).not.toContain('do the thing');
  expect(messagesText(mock.agentCalls().at(-2) ?? null)).toContain('do the thing');
});

test('an API error and a non-zero exit are failures with the reason', async () => {
  mock.reply({ status: 403, message: 'Forbidden: organization disabled' });
  const first = await claude.run(request());
  expect(first.success).toBe(false);
  expect(first.error).toMatch(/^claude: the model API answered 403: .*Forbidden: organization disabled/);
  // A success line followed by exit 1, which the real CLI does not do on demand: a script prints a line shaped
  // like the real one.
  const second = await claude.run(
    request({
      options: {
        command: scriptBin(
          'success-then-exit-1',
          `echo '{"type":"result","subtype":"success","is_error":false,"result":"half","session_id":"${randomUUID()}","total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1}}'; exit 1`,
        ),
      },
    }),
  );
  expect(second).toMatchObject({ success: false, text: 'half', exitCode: 1 });
  expect(second.error).toMatch(/^claude exited with code 1/);
});

test('a refused credential (401) fails the turn at the first refusal, naming the variable, not after ten retries', async () => {
  const before = mock.requests.filter((r) => r.kind === 'agent').length;
  // every call refused, as the real API answers a wrong key: claude would retry each one for about three minutes
  mock.setRespond(() => ({ status: 401, message: 'invalid x-api-key', retryHeader: 'absent' }));
  const result = await claude.run(request()).finally(() => mock.setRespond(undefined));
  expect(result).toMatchObject({ success: false, aborted: false });
  expect(result.error).toBe(
    "claude: the model API refused the credential (401 authentication_failed): check ANTHROPIC_API_KEY in the harness's environment (harness.claude.env, env.file); the turn was stopped at the first refusal instead of retrying",
  );
  // stopped at claude's first retry: at most the refused call and the one retry under way when it was stopped
  const calls = mock.requests.filter((r) => r.kind === 'agent').length - before;
  expect(calls).toBeGreaterThanOrEqual(1);
  expect(calls).toBeLessThanOrEqual(2);
});

test('non-JSON stdout is a clear failure', async () => {
  const result = await claude.run(
    request({ options: { command: scriptBin('echo-bin', 'echo "hello not json"') } }),
  );
  expect(result.success).toBe(false);
  expect(result.error).toBe('claude printed no JSON result on stdout (got: hello not json)');
});

function scriptBin(name: string, body: string): string {
  const file = path.join(fx.root, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

test('conversation: a new one on the first turn, resumed afterwards while its transcript exists', async () => {
  const id = randomUUID();
  const configDir = path.join(fx.root, 'claude-config');
  const turn = (resume: boolean) => {
    const base = request({ conversation: { id, resume } });
    return { ...base, env: { ...base.env, CLAUDE_CONFIG_DIR: configDir } };
  };
  mock.reply({ text: 'first turn says: kumquat' }, { text: 'second turn' });
  const first = await claude.run(turn(false));
  // the real CLI wrote the transcript where the adapter looks for it
  expect(fs.existsSync(claudeTranscriptFile(turn(true).cwd, id, { CLAUDE_CONFIG_DIR: configDir }))).toBe(
    true,
  );
  const second = await claude.run(turn(true));
  expect(first).toMatchObject({ success: true, conversationId: id });
  expect(second).toMatchObject({ success: true, conversationId: id, text: 'second turn' });
  expect(messagesText(mock.agentCalls().at(-1) ?? null)).toContain('first turn says: kumquat');
});

test('a conversation with no transcript for this cwd is replaced by a new one, not resumed', async () => {
  const id = randomUUID();
  const base = request({ conversation: { id, resume: true } });
  mock.reply({ text: 'a fresh start' });
  const result = await claude.run({
    ...base,
    env: { ...base.env, CLAUDE_CONFIG_DIR: path.join(fx.root, 'none') },
  });
  expect(result).toMatchObject({ success: true, text: 'a fresh start' });
  expect(result.conversationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(result.conversationId).not.toBe(id);
  expect(
    mock
      .agentCalls()
      .at(-1)
      ?.messages?.filter((m) => m.role === 'assistant'),
  ).toEqual([]);
});

test('options become flags', () => {
  const args = claudeArgs(
    fx.request({
      options: { permissionMode: 'acceptEdits', maxBudgetUsd: 2.5, extraArgs: ['--model', 'opus'] },
    }),
  );
  expect(args).toEqual([
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
    '--max-budget-usd',
    '2.5',
    '--model',
    'opus',
  ]);
});

test('timeout kills the whole group and the tool processes in groups of their own', async () => {
  // The timeout must strike while the tool runs. On a busy machine claude may not reach its tool within the
  // timeout: that run proves nothing about the tool, so it is run again with twice the time.
  const pidFile = path.join(fs.mkdtempSync(path.join(fx.root, 'tool-')), 'tool.pid');
  // The real claude runs a Bash command as the leader of a process group of its own.
  const toolReply = {
    toolUses: [
      {
        name: 'Bash',
        input: {
          command: `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && sleep 600`,
          timeout: 600000,
        },
      },
    ],
  };
  let replyQueued = false;
  for (let timeoutMs = 10_000; ; timeoutMs *= 2) {
    const req = request({ timeoutMs });
    // a run killed before it asked the mock leaves its reply queued for the next one
    const callsBefore = mock.agentCalls().length;
    if (!replyQueued) mock.reply(toolReply);
    let pgid = 0;
    // the tool sleeps ten minutes, longer than this file's test timeout: the run returns only if the group is killed
    const result = await claude.run({ ...req, onSpawn: (i) => (pgid = i.pgid) });
    expect(result).toMatchObject({ success: false, timedOut: true, aborted: false });
    expect(result.error).toMatch(
      new RegExp(
        `^harness timed out after ${timeoutMs} ms; process group (stopped with SIGTERM|killed with SIGKILL)$`,
      ),
    );
    expectGroupGone(pgid);
    replyQueued = mock.agentCalls().length === callsBefore;
    if (!fs.existsSync(pidFile)) {
      if (timeoutMs >= 40_000) throw new Error(`claude did not start its tool within ${timeoutMs} ms`);
      continue;
    }
    const tool = Number(fs.readFileSync(pidFile, 'utf8').trim());
    expect(tool).not.toBe(pgid);
    expectGroupGone(tool);
    return;
  }
});

test('abort kills a SIGTERM-ignoring harness with SIGKILL', async () => {
  const controller = new AbortController();
  let pgid = 0;
  // No real agent CLI ignores SIGTERM: a stand-in does (test/support/bin/sigterm-ignoring-harness).
  const running = claude.run(
    request({
      options: { command: SIGTERM_IGNORING_HARNESS },
      signal: controller.signal,
      killGraceMs: 300,
      onSpawn: (i) => {
        pgid = i.pgid;
        setTimeout(() => controller.abort(), 500);
      },
    }),
  );
  const result = await running;
  expect(result).toMatchObject({ success: false, aborted: true, timedOut: false, signal: 'SIGKILL' });
  expect(result.error).toBe('harness run aborted; process group killed with SIGKILL');
  expectGroupGone(pgid);
});

test('unknown executable is a failed result, not a throw', async () => {
  const result = await claude.run(request({ options: { command: 'no-such-claude-xyz' } }));
  expect(result.success).toBe(false);
  expect(result.error).toBe(
    "harness executable 'no-such-claude-xyz' not found on PATH — install it or set THE_LOOP_CLAUDE_BIN (or the harness's command option)",
  );
  const viaEnv = await claude.run(
    fx.request({ options: {}, env: { THE_LOOP_CLAUDE_BIN: path.join(fx.root, 'missing') } }),
  );
  expect(viaEnv.error).toMatch(/^harness executable '.*missing' not found on PATH/);
});

test('an already-aborted signal never starts the harness', async () => {
  const controller = new AbortController();
  controller.abort();
  const calls = mock.requests.length;
  const result = await claude.run(request({ signal: controller.signal }));
  expect(result).toMatchObject({ success: false, aborted: true, exitCode: null });
  expect(mock.requests.length).toBe(calls);
});

test('a tool process left behind by a finished run is killed', async () => {
  const req = request();
  const pidFile = path.join(req.cwd, 'left.pid');
  // A background process that the tool's shell leaves running when the turn ends.
  mock.reply(
    {
      toolUses: [
        {
          name: 'Bash',
          input: {
            command: `sleep 60 > /dev/null 2>&1 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}`,
          },
        },
      ],
    },
    { text: 'left something running' },
  );
  let pgid = 0;
  const result = await claude.run({ ...req, onSpawn: (i) => (pgid = i.pgid) });
  expect(result.success).toBe(true);
  expectGroupGone(pgid);
  const left = Number(
    await waitFor(pidFile, () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()),
  );
  expect(isProcessGroupAlive(left) && liveProcessGroupMembers(left)?.includes(left)).toBe(false);
});
