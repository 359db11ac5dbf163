import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { LOOPY_BIN_DIR } from '../../../src/harness/env';
import { deliverToWorkItem, runningWorkItem } from '../../../src/temporal/work-items';
import { readPortable } from '../../../src/work-item/portable';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import {
  messagesText,
  QUIET_CLAUDE_ENV,
  realClaudeBin,
  runRealClaude,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { allCommandLines, paneEnvironment, setupRealClaudeEnv, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

/** A key only this test uses: it must reach the mock, and nothing else may hold it. */
const KEY = `sk-ant-api03-spawn-test-${randomUUID()}`;
/** The same for the GitHub token: the-loop's commands in the pane get it from a file, never from the env. */
const GH = `ghp_spawn_test_${randomUUID().replace(/-/g, '')}`;
const QUIET = QUIET_CLAUDE_ENV;

/**
 * The REAL interactive Claude Code hosted by the-loop in tmux, against the local mock of the Anthropic API: the
 * API key from env.file reaches claude only through apiKeyHelper; a registered id with no conversation in its
 * directory is replaced by a new conversation; a pane that dies or never becomes ready fails `start` and leaves no
 * session behind; `register --force` moves the events to the new conversation.
 */
// Several real claude runs per test on a loaded machine: jest's 120 s is not enough (the waits have their own bounds).
jest.setTimeout(600_000);

// Work-item workflow ids are server-wide and every suite shares the run's dev server: numbers no other suite uses.
describe('hosted sessions on the real claude', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let yaml: Record<string, unknown>;
  let claudeJson: string;

  const rewriteConfig = (changes: Record<string, unknown>) =>
    writeFileSync(env.configFile, stringify({ ...yaml, ...changes }));
  const eventsOf = (ref: string) =>
    readFileSync(join(env.dirs.eventsDir, `${refSlug(parseWorkItemRef(ref))}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data?: Record<string, unknown> });
  /** The agent call that carried `text`, once claude sent it. */
  const callWith = (text: string) =>
    waitFor(
      `the mock to receive '${text}'`,
      () => mock.requests.find((r) => r.kind === 'agent' && messagesText(r.body).includes(text)),
      // behind the start's own first turn, in a TUI that starts slowly on a loaded machine
      240_000,
    );
  const deliver = (ref: string, id: string, text: string) =>
    deliverToWorkItem(env.client, env.queues, ref, { id, text, source: 'test' }, false);

  beforeAll(async () => {
    mock = await startMockAnthropic();
    env = await setupRealClaudeEnv(mock, KEY, { envFileLines: [`GH_TOKEN=${GH}`] });
    // The worker re-reads the config at each spawn: the file as it is then, not the one the worker started on, decides.
    yaml = parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    // A user who has been through claude's onboarding once (CLAUDE_CONFIG_DIR is this test's own).
    claudeJson = join(process.env.CLAUDE_CONFIG_DIR ?? '', '.claude.json');
  });

  afterAll(async () => {
    await env.dispose();
    await mock.close();
  });

  it('start: claude authenticates through apiKeyHelper; the key is in no argv, tmux environment or pane environment', async () => {
    const item = 'github:octo/repo#1201';
    const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await deliver(item, 'e1', 'first event for item one');
    const call = await callWith('first event for item one');
    expect(call.headers['x-api-key']).toBe(KEY);

    const pane = paneEnvironment(env, item);
    for (const secret of [KEY, GH]) {
      expect([...pane.vars.values()].some((v) => v.includes(secret))).toBe(false);
      expect(allCommandLines().some((line) => line.includes(secret))).toBe(false);
      expect(env.tmux('show-environment', '-g').stdout).not.toContain(secret);
      expect(env.tmux('show-environment', '-t', `=${env.tmuxName(item)}`).stdout).not.toContain(secret);
    }
    expect(pane.vars.get('ANTHROPIC_BASE_URL')).toBe(mock.url);
    expect(pane.vars.has('GH_TOKEN')).toBe(false);
    // the-loop's commands in the pane use the worker's config and state directory
    expect(pane.vars.get('THE_LOOP_CONFIG')).toBe(env.configFile);
    expect(pane.vars.get('THE_LOOP_STATE_DIR')).toBe(env.stateDir);
    // and this installation's the-loop first on PATH (tmux takes a pane's PATH from its client, not from -e)
    expect(pane.vars.get('PATH')?.split(':')[0]).toBe(LOOPY_BIN_DIR);
    // the-loop's own commands in the pane (item show, pr create, the link-pr hook) read the token from a 0600 file
    const tokenFile = pane.vars.get('THE_LOOP_GITHUB_TOKEN_FILE') ?? '';
    expect(readFileSync(tokenFile, 'utf8')).toBe(`${GH}\n`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    // the helper's key file is private to the user
    const settings = JSON.parse(
      readFileSync(join(env.dirs.stateRoot, 'local', 'claude-auth', 'settings.json'), 'utf8'),
    ) as { apiKeyHelper: string };
    expect(settings.apiKeyHelper).not.toContain(KEY);
    expect(statSync(join(env.dirs.stateRoot, 'local', 'claude-auth', 'anthropic-api-key')).mode & 0o777).toBe(
      0o600,
    );
    expect(readFileSync(join(env.dirs.registryDir, '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a registered id with no conversation in its directory: register warns, start opens a new one and records it', async () => {
    const item = 'github:octo/repo#1202';
    const cwd = join(env.dir, 'user-dir-2');
    mkdirSync(cwd);
    const unknown = randomUUID();
    const reg = await env.cli([
      'sessions',
      'register',
      '--work-item',
      item,
      '--harness',
      'claude',
      '--harness-session-id',
      unknown,
      '--cwd',
      cwd,
    ]);
    expect(reg.code).toBe(0);
    expect(reg.stderr).toMatch(new RegExp(`warning: no claude conversation ${unknown} was found for ${cwd}`));

    const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const record = env.record(item);
    const fresh = record?.harness_session_id ?? '';
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh).not.toBe(unknown);
    expect(record?.cwd).toBe(cwd);
    expect(readPortable(env.dirs, refSlug(parseWorkItemRef(item)))?.conversation).toMatchObject({
      harness: 'claude',
      id: fresh,
      cwd,
    });
    expect(eventsOf(item).find((e) => e.type === 'session.spawned')?.data).toMatchObject({
      resumed: false,
      harness_session_id: fresh,
      replaced_conversation: unknown,
    });
    await deliver(item, 'e1', 'hello from item two');
    await callWith('hello from item two');
    // the pane lives on in the new conversation
    expect(
      env.tmux('display-message', '-p', '-t', `=${env.tmuxName(item)}:`, '#{pane_dead}').stdout.trim(),
    ).toBe('0');
  });

  it('a pane that dies as it starts fails start with its last lines, and leaves no session behind', async () => {
    const item = 'github:octo/repo#1203';
    rewriteConfig({ harness: { claude: { command: realClaudeBin(), extraArgs: ['--no-such-flag'] } } });
    try {
      const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the claude harness exited as it started; the pane's last lines:/);
      expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
    } finally {
      rewriteConfig({});
    }
    await waitFor(
      'the workflow to end',
      async () => (await runningWorkItem(env.client, item)) === null,
      180_000,
    );
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(item)}`).code).not.toBe(0);
    expect(env.record(item)?.status).toBe('closed');
    expect(eventsOf(item).map((e) => e.type)).toContain('session.spawn_failed');
  });

  it('a pane held by a first-run dialog is reported as never ready, not fed', async () => {
    const item = 'github:octo/repo#1204';
    const onboarded = readFileSync(claudeJson, 'utf8');
    writeFileSync(claudeJson, JSON.stringify({ ...JSON.parse(onboarded), hasCompletedOnboarding: false }));
    rewriteConfig({ harness: { claude: { command: realClaudeBin(), readyTimeoutSeconds: 20 } } });
    try {
      const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the claude harness did not become ready within 20s \(a first-run dialog/);
      expect(r.stderr).toMatch(/Dark mode/);
    } finally {
      writeFileSync(claudeJson, onboarded);
      rewriteConfig({});
    }
    await waitFor(
      'the workflow to end',
      async () => (await runningWorkItem(env.client, item)) === null,
      180_000,
    );
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(item)}`).code).not.toBe(0);
  });

  it('register --force ends the old pane; the next event goes to the newly registered conversation', async () => {
    const item = 'github:octo/repo#1205';
    const cwd = join(env.dir, 'user-dir-5');
    mkdirSync(cwd);
    // Two conversations the user had in this directory, each with a message.
    const claude = {
      ...QUIET,
      CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR ?? '',
      HOME: env.dir,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: KEY,
    };
    const alpha = randomUUID();
    const beta = randomUUID();
    for (const [id, prompt] of [
      [alpha, 'alpha conversation opener'],
      [beta, 'beta conversation opener'],
    ] as const) {
      const run = await runRealClaude([`--session-id=${id}`], { prompt, cwd, env: claude });
      expect(run.code).toBe(0);
    }
    const register = (id: string, force: boolean) =>
      env.cli([
        'sessions',
        'register',
        '--work-item',
        item,
        '--harness',
        'claude',
        '--harness-session-id',
        id,
        '--cwd',
        cwd,
        ...(force ? ['--force'] : []),
      ]);
    expect((await register(alpha, false)).code).toBe(0);
    expect((await env.cli(['sessions', 'start', '--work-item', item, '--no-comment'])).code).toBe(0);
    await deliver(item, 'e1', 'event for alpha');
    expect(messagesText((await callWith('event for alpha')).body)).toContain('alpha conversation opener');
    const oldPid = paneEnvironment(env, item).pid;

    const forced = await register(beta, true);
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    await waitFor(
      'the old pane to end',
      () => {
        const out = env.tmux('display-message', '-p', '-t', `=${env.tmuxName(item)}:`, '#{pane_pid}');
        return out.code !== 0 || Number(out.stdout.trim()) !== oldPid;
      },
      180_000,
    );
    await deliver(item, 'e2', 'event for beta');
    const text = messagesText((await callWith('event for beta')).body);
    expect(text).toContain('beta conversation opener');
    expect(text).not.toContain('alpha conversation opener');
    expect(env.record(item)?.harness_session_id).toBe(beta);
  });
});
