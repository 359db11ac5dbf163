import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { getHarness, isProcessGroupAlive } from '../../../src/harness';
import { claudeArgs } from '../../../src/harness/claude';
import { liveProcessGroupMembers } from '../../../src/harness/process';
import { claudeTranscriptFile } from '../../../src/harness/claude-transcript';
import { makeFixture, type Fixture } from './harness-fixture';

jest.setTimeout(30000);
const claude = getHarness('claude');
let fx: Fixture;
beforeEach(() => {
  fx = makeFixture();
});
afterEach(() => fx.cleanup());

/** Nothing of the group may still run; zombies left to a non-reaping init do not count (see isProcessGroupAlive). */
function expectGroupGone(pgid: number): void {
  expect(isProcessGroupAlive(pgid)).toBe(false);
  expect(liveProcessGroupMembers(pgid) ?? []).toEqual([]);
}

test('success: text, usage, output files, env and prompt on stdin', async () => {
  fx.script([
    {
      result: 'all done',
      cost_usd: 0.25,
      num_turns: 3,
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_read_input_tokens: 7,
        cache_creation_input_tokens: 3,
      },
      write_files: { 'out/hello.txt': 'hi' },
      goal_check: { goal_met: false, reason: 'not yet' },
      control: { state: 'stopped', reason: 'enough' },
      child_requests: { 'c1.json': { goal: 'sub' } },
      append_project_state: { 'memory.md': 'fact\n' },
    },
  ]);
  const req = fx.request();
  let spawned: { pid: number; pgid: number } | null = null;
  const result = await claude.run({ ...req, onSpawn: (info) => (spawned = info) });
  expect(result).toMatchObject({
    success: true,
    text: 'all done',
    error: null,
    exitCode: 0,
    timedOut: false,
  });
  expect(result.usage).toMatchObject({
    input_tokens: 100,
    output_tokens: 20,
    cache_read_input_tokens: 7,
    cache_creation_input_tokens: 3,
    cost_usd: 0.25,
    num_turns: 3,
  });
  expect(spawned).not.toBeNull();
  expect(fs.readFileSync(path.join(req.cwd, 'out/hello.txt'), 'utf8')).toBe('hi');
  expect(JSON.parse(fs.readFileSync(path.join(req.iterationDir, 'goal_check.json'), 'utf8'))).toEqual({
    schema_version: 1,
    goal_met: false,
    reason: 'not yet',
  });
  expect(JSON.parse(fs.readFileSync(req.controlFile, 'utf8'))).toEqual({
    state: 'stopped',
    reason: 'enough',
  });
  expect(fs.existsSync(path.join(req.sessionDir, 'child_requests', 'c1.json'))).toBe(true);
  expect(fs.readFileSync(path.join(req.sessionDir, 'project_state', 'memory.md'), 'utf8')).toBe('fact\n');
  expect(fs.readFileSync(path.join(req.outputDir, 'stdout.txt'), 'utf8')).toContain('"all done"');
  expect(fs.existsSync(path.join(req.outputDir, 'stderr.txt'))).toBe(true);
  const [run] = fx.runs();
  expect(run?.iteration_dir).toBe(req.iterationDir);
  expect(run?.args.slice(0, 3)).toEqual(['-p', '--output-format', 'json']);
  // the prompt went through stdin, not argv
  expect(run?.args.join(' ')).not.toContain('do the thing');
  expect(run?.prompt_sha256).toBe(createHash('sha256').update('do the thing').digest('hex'));
});

test('is_error and a non-zero exit are failures with the reason', async () => {
  fx.script([
    { is_error: true, result: 'API overloaded' },
    { crash_after_result: true, result: 'half' },
  ]);
  const first = await claude.run(fx.request());
  expect(first.success).toBe(false);
  expect(first.error).toBe('claude failed (error_during_execution): API overloaded');
  const second = await claude.run(fx.request());
  expect(second).toMatchObject({ success: false, text: 'half', exitCode: 1 });
  expect(second.error).toMatch(/^claude exited with code 1/);
});

test('non-JSON stdout is a clear failure', async () => {
  const result = await claude.run(fx.request({ options: { command: scriptBin('echo-bin') } }));
  expect(result.success).toBe(false);
  expect(result.error).toBe('claude printed no JSON result on stdout (got: hello not json)');
});

function scriptBin(name: string): string {
  const file = path.join(fx.root, name);
  fs.writeFileSync(file, '#!/bin/sh\necho "hello not json"\n', { mode: 0o755 });
  return file;
}

test('conversation: --session-id on the first turn, --resume afterwards while its transcript exists', async () => {
  const id = randomUUID();
  const configDir = path.join(fx.root, 'claude-config');
  const request = (resume: boolean) => {
    const base = fx.request({ conversation: { id, resume } });
    return { ...base, env: { ...base.env, CLAUDE_CONFIG_DIR: configDir } };
  };
  fx.script([]);
  const first = await claude.run(request(false));
  // claude's transcript of the first turn (the fake writes none): a user message, under the cwd's project dir.
  const transcript = claudeTranscriptFile(request(true).cwd, id, { CLAUDE_CONFIG_DIR: configDir });
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } })}\n`,
  );
  const second = await claude.run(request(true));
  expect(first.conversationId).toBe(id);
  expect(second.conversationId).toBe(id);
  const [r1, r2] = fx.runs();
  // The id rides in its flag's own argument, so no id can be read as a flag.
  expect(r1?.args).toContain(`--session-id=${id}`);
  expect(r1?.args.some((a) => a.startsWith('--resume'))).toBe(false);
  expect(r2?.args).toContain(`--resume=${id}`);
  expect(r2?.args.some((a) => a.startsWith('--session-id'))).toBe(false);
});

test('a conversation with no transcript for this cwd is replaced by a new one, not resumed', async () => {
  const id = randomUUID();
  fx.script([]);
  const base = fx.request({ conversation: { id, resume: true } });
  const result = await claude.run({
    ...base,
    env: { ...base.env, CLAUDE_CONFIG_DIR: path.join(fx.root, 'none') },
  });
  const [run] = fx.runs();
  expect(run?.args.some((a) => a.startsWith('--resume'))).toBe(false);
  const fresh = run?.args.find((a) => a.startsWith('--session-id='))?.slice('--session-id='.length);
  expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
  expect(fresh).not.toBe(id);
  expect(result.conversationId).toBe(fresh);
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
    'json',
    '--permission-mode',
    'acceptEdits',
    '--max-budget-usd',
    '2.5',
    '--model',
    'opus',
  ]);
});

test('timeout kills the whole group, grandchild included', async () => {
  fx.script([{ sleep_ms: 60000, spawn_grandchild_sleep_ms: 60000 }]);
  let pgid = 0;
  // the grandchild sleeps a minute, twice this file's test timeout: the run returns only if the group is killed
  const result = await claude.run(fx.request({ timeoutMs: 700, onSpawn: (i) => (pgid = i.pgid) }));
  expect(result).toMatchObject({ success: false, timedOut: true, aborted: false });
  expect(result.error).toMatch(
    /^harness timed out after 700 ms; process group (stopped with SIGTERM|killed with SIGKILL)$/,
  );
  expectGroupGone(pgid);
  const grandchild = Number(fs.readFileSync(path.join(fx.stateDir, 'grandchild-1.pid'), 'utf8'));
  expect(liveProcessGroupMembers(pgid)).not.toContain(grandchild);
});

test('abort kills a SIGTERM-ignoring harness with SIGKILL', async () => {
  fx.script([{ sleep_ms: 60000, ignore_sigterm: true, spawn_grandchild_sleep_ms: 60000 }]);
  const controller = new AbortController();
  let pgid = 0;
  const running = claude.run(
    fx.request({
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

test('a grandchild left behind by a finished run is killed', async () => {
  fx.script([{ spawn_grandchild_sleep_ms: 60000 }]);
  let pgid = 0;
  const result = await claude.run(fx.request({ onSpawn: (i) => (pgid = i.pgid) }));
  expect(result.success).toBe(true);
  expectGroupGone(pgid);
});

test('unknown executable is a failed result, not a throw', async () => {
  const result = await claude.run(fx.request({ options: { command: 'no-such-claude-xyz' } }));
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
  const result = await claude.run(fx.request({ signal: controller.signal }));
  expect(result).toMatchObject({ success: false, aborted: true, exitCode: null });
  expect(fs.existsSync(path.join(fx.stateDir, 'runs.jsonl'))).toBe(false);
});
