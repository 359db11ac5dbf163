import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { configSchema } from '../../src/config/schema';
import { runCli } from '../support/cli';
import { claudeEnv, realClaudeBin, startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic';
import { after, scriptGoalLoops, type AgentPlay } from '../support/scripted-agent';
import { startTestWorker, testClient, testServer, uniqueQueue, type TestWorker } from '../support/temporal';
import { waitFor } from '../support/wait';

const ITERATION_STARTED = / 0001 \S+ started \(/;

/**
 * `loopy run` with the REAL claude CLI against the mock Anthropic API (turns scripted by iteration number). The worker
 * runs in this process, so the harness inherits this process's environment: the mock's URL, a dummy key and a
 * scratch HOME.
 */
describe('loopy run, as a user runs it', () => {
  let worker: TestWorker;
  let env: NodeJS.ProcessEnv;
  let workdir: string;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  const CLAUDE = realClaudeBin();
  /** Every turn plays `fallback`, except those `byIteration` names. */
  const script = (fallback: AgentPlay, byIteration: Record<number, AgentPlay> = {}) =>
    scriptGoalLoops(mock, (turn) => byIteration[turn.iteration] ?? fallback);

  beforeAll(async () => {
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock).env);
    const taskQueue = uniqueQueue('e2e');
    workdir = mkdtempSync(join(tmpdir(), 'loopy-e2e-'));
    const configFile = join(workdir, 'the-loop.yaml');
    writeFileSync(
      configFile,
      [
        'temporal:',
        `  taskQueue: ${taskQueue}`,
        'worker:',
        '  hostId: e2ehost',
        'harness:',
        '  claude:',
        `    command: ${CLAUDE}`,
        '',
      ].join('\n'),
    );
    const config = configSchema.parse({
      temporal: { taskQueue },
      worker: { hostId: 'e2ehost' },
      harness: { claude: { command: CLAUDE } },
    });
    worker = await startTestWorker({ config, taskQueue, hostId: 'e2ehost' });
    env = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile };
  });
  afterAll(async () => {
    await worker.shutdown();
    await mock.close();
    process.env = saved;
  });

  it('Ctrl-C detaches at once: the prompt returns and the session keeps running', async () => {
    script({}, { 1: { until: after(20_000) } });
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-sigint-'));
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', '..', 'bin', 'loopy'), 'run', '--goal', 'keep going', '--cwd', cwd],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let exitCode: number | null | undefined;
    child.on('exit', (code) => (exitCode = code));
    const { client, connection }: { client: Client; connection: Connection } = await testClient();
    try {
      // Following for real: the first iteration is under way (its harness sleeps), so the result poll is pending.
      await waitFor('the first iteration to start', () => ITERATION_STARTED.test(stdout), 60_000);
      const sessionId = /^session (\S+)$/m.exec(stdout)?.[1] ?? '';
      expect(sessionId).not.toBe('');
      child.kill('SIGINT');
      // The held prompt this guards against lasted 16–19 s (an uncancelled long poll); well under that is "returned".
      await waitFor('loopy run to exit after SIGINT', () => exitCode !== undefined, 8_000, 50);
      expect(exitCode).toBe(0);
      expect(stderr).toMatch(new RegExp(`detached — session ${sessionId} keeps running`));
      const description = await client.workflow.getHandle(sessionId).describe();
      expect(description.status.name).toBe('RUNNING');
      await client.workflow.getHandle(sessionId).terminate('test done');
    } finally {
      if (exitCode === undefined) child.kill('SIGKILL');
      await connection.close();
    }
  });

  const sessionsUnder = (cwd: string) =>
    existsSync(join(cwd, '.loopy_loop', 'sessions')) ? readdirSync(join(cwd, '.loopy_loop', 'sessions')) : [];

  it('follows a session to its end and exits 0 when the agent stops it; list/status/events agree', async () => {
    script(
      {},
      { 1: { costUsd: 0.1 }, 2: { costUsd: 0.1, control: { state: 'stopped', reason: 'all done' } } },
    );
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-run-'));
    const run = await runCli(['run', '--goal', 'write hello.txt', '--cwd', cwd], {
      env,
      name: 'loopy',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^session \d{8}_\d{6}_[0-9a-f]{12}_[0-9a-f]{8}$/m);
    expect(run.stdout).toMatch(/0001 planner ok · \$0\.10 \(total \$0\.10\)/);
    expect(run.stdout).toMatch(/session stopped \(control\): all done — 2 iterations, \$0\.20/);

    const list = await runCli(['list', '--format', 'json'], { env, cwd, name: 'loopy' });
    const rows = JSON.parse(list.stdout) as { status: string; iterations: number; cost_usd: number }[];
    expect(rows).toHaveLength(1);
    // One vocabulary: the list says what state.json and LoopStatus say; the stop kind says why.
    expect(rows[0]).toMatchObject({ status: 'stopped', stop: { kind: 'control' }, iterations: 2 });
    const table = await runCli(['list'], { env, cwd, name: 'loopy' });
    expect(table.stdout).toMatch(/stopped \(control\)/);
    const finished = await runCli(['list', '--status', 'finished', '--format', 'json'], {
      env,
      cwd,
      name: 'loopy',
    });
    expect(JSON.parse(finished.stdout)).toHaveLength(1);
    const running = await runCli(['list', '--status', 'running', '--format', 'json'], {
      env,
      cwd,
      name: 'loopy',
    });
    expect(JSON.parse(running.stdout)).toHaveLength(0);
    const status = await runCli(['status'], { env, cwd, name: 'loopy' });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/status +stopped \(control\): all done/);
    const events = await runCli(['events', '--format', 'jsonl'], { env, cwd, name: 'loopy' });
    const types = events.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types[0]).toBe('session_started');
    expect(types.at(-1)).toBe('session_stopped');
  });

  it('--detach prints only the session id; a limit stop exits 3', async () => {
    script({ costUsd: 0.4 });
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-run-'));
    const detached = await runCli(['run', '--goal', 'g', '--cwd', cwd, '--detach', '--max-iterations', '1'], {
      env,
      name: 'loopy',
    });
    expect(detached.code).toBe(0);
    expect(detached.stdout.trim()).toMatch(/^\d{8}_\d{6}_[0-9a-f]{12}_[0-9a-f]{8}$/);
    const budget = await runCli(
      ['run', '--goal', 'g', '--cwd', cwd, '--max-cost-usd', '1', '--format', 'jsonl'],
      {
        env,
        name: 'loopy',
      },
    );
    expect(budget.code).toBe(3);
    const last = JSON.parse(budget.stdout.trim().split('\n').at(-1) ?? '{}') as {
      type: string;
      data: { kind: string };
    };
    expect(last).toMatchObject({ type: 'session_stopped', data: { kind: 'budget' } });
  });

  describe('bad input: one line, exit 2, nothing created', () => {
    const cases: [string, string[], RegExp][] = [
      ['an empty goal', ['--goal', '   '], /^loopy: --goal is empty/],
      ['a missing goal file', ['--goal-file', 'nope.md'], /^loopy: --goal-file nope\.md: no such file/],
      [
        'an unknown harness',
        ['--goal', 'x', '--harness', 'gpt'],
        /^loopy: unknown harness 'gpt' — use one of claude, cursor, codex, command/,
      ],
      ['no goal at all', [], /^loopy: a goal is required/],
      [
        'a bad budget',
        ['--goal', 'x', '--max-cost-usd', '-1'],
        /^loopy: --max-cost-usd -1: expected a positive amount/,
      ],
      [
        'a bad duration',
        ['--goal', 'x', '--max-duration', 'soon'],
        /^loopy: --max-duration 'soon' is not a duration/,
      ],
    ];
    it.each(cases)('%s', async (_name, args, message) => {
      const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
      const result = await runCli(['run', '--cwd', cwd, ...args], { env, cwd, name: 'loopy' });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(existsSync(join(cwd, '.loopy_loop'))).toBe(false);
    });

    it('a malformed workflows YAML names the line and the field', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
      writeFileSync(
        join(cwd, 'wf.yaml'),
        'workflows:\n  - id: planner\n    prompt: "plan {goal}"\n    when: { every: 0 }\n',
      );
      const result = await runCli(['run', '--goal', 'x', '--workflows', 'wf.yaml'], {
        env,
        cwd,
        name: 'loopy',
      });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/wf\.yaml:4(:\d+)?: workflows(\[0\]|\.0)\.when\.every/);
      expect(sessionsUnder(cwd)).toEqual([]);
    });

    describe('a harness that cannot run is refused before anything is created', () => {
      // A config without harness.claude.command: the default harness resolves `claude` on PATH.
      const plainEnv = (path: string) => {
        const dir = mkdtempSync(join(tmpdir(), 'loopy-noclaude-'));
        const configFile = join(dir, 'the-loop.yaml');
        writeFileSync(configFile, 'worker:\n  hostId: e2ehost\n');
        return { ...env, THE_LOOP_CONFIG: configFile, PATH: path };
      };
      /** A PATH with node on it (the launcher runs it) and nothing else. */
      const onlyNode = () => {
        const bin = mkdtempSync(join(tmpdir(), 'loopy-path-'));
        symlinkSync(process.execPath, join(bin, 'node'));
        return bin;
      };

      it('claude not on PATH: exit 2 with how to install it or use --harness command', async () => {
        const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
        const nodeOnly = onlyNode();
        const result = await runCli(['run', '--goal', 'x', '--cwd', cwd], {
          env: plainEnv(nodeOnly),
          cwd,
          name: 'loopy',
        });
        expect(result.code).toBe(2);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/^loopy: the claude harness needs `claude`, which is not on PATH/);
        expect(result.stderr).toMatch(/npm install -g @anthropic-ai\/claude-code/);
        expect(result.stderr).toMatch(/--harness command/);
        expect(existsSync(join(cwd, '.loopy_loop'))).toBe(false);
      });

      it('a claude whose --version fails: exit 2, nothing created', async () => {
        const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
        const bin = mkdtempSync(join(tmpdir(), 'loopy-path-'));
        writeFileSync(join(bin, 'claude'), '#!/bin/sh\necho "claude: broken install" >&2\nexit 1\n', {
          mode: 0o755,
        });
        const result = await runCli(['run', '--goal', 'x', '--cwd', cwd], {
          env: plainEnv(`${bin}:/usr/bin:/bin`),
          cwd,
          name: 'loopy',
        });
        expect(result.code).toBe(2);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/--version` failed \(claude: broken install\)/);
        expect(existsSync(join(cwd, '.loopy_loop'))).toBe(false);
      });

      it('a routine naming a missing codex is refused too', async () => {
        const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
        writeFileSync(
          join(cwd, 'wf.yaml'),
          'workflows:\n  - id: worker\n    prompt: "do {goal}"\n    harness: codex\n    when: { default: true }\n',
        );
        const nodeOnly = onlyNode();
        const result = await runCli(
          [
            'run',
            '--goal',
            'x',
            '--harness',
            'command',
            '--harness-command',
            'true',
            '--workflows',
            'wf.yaml',
          ],
          { env: plainEnv(nodeOnly), cwd, name: 'loopy' },
        );
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/^loopy: the codex harness needs `codex`, which is not on PATH/);
        expect(existsSync(join(cwd, '.loopy_loop'))).toBe(false);
      });
    });

    it('an unknown session id', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'loopy-bad-'));
      for (const verb of ['status', 'pause', 'stop']) {
        const result = await runCli([verb, '20990101_000000_0123456789ab_deadbeef'], {
          env,
          cwd,
          name: 'loopy',
        });
        expect(result.code).toBe(2);
        expect(result.stderr.trim()).toMatch(
          /^loopy: unknown session '20990101_000000_0123456789ab_deadbeef'/,
        );
      }
      const malformed = await runCli(['events', 'not-a-session'], { env, cwd, name: 'loopy' });
      expect(malformed.code).toBe(2);
      expect(malformed.stderr.trim()).toMatch(/^loopy: 'not-a-session' is not a session id/);
      expect(existsSync(join(cwd, '.loopy_loop'))).toBe(false);
    });
  });
});
