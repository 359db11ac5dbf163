import { claudeSessionId } from '../../support/ids';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deliverToWorkItem, runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { BIN } from '../../support/cli';
import { messagesText } from '../../support/mock-anthropic';
import {
  git,
  isNodeCommand,
  openClaudeConversation,
  paneProcess,
  setupWorkItemEnv,
  type WorkItemTestEnv,
} from './helpers';
import { staysTrue, waitFor } from '../../support/wait';

const CONV_15 = claudeSessionId(15);

const ITEM = 'github:octo/repo#15';
const OPENER = 'OPENER-15: what the person asked before registering the conversation';

/** The transcript claude keeps of conversation `id` in `cwd` (under this test's CLAUDE_CONFIG_DIR). */
const transcriptOf = (cwd: string, id: string) =>
  join(process.env.CLAUDE_CONFIG_DIR ?? '', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);

// The first test runs a dozen CLI processes one after another, each loading the Temporal client: a few seconds
// apiece on a loaded machine, which is what took it past jest's default. Every wait in here is for a condition.
jest.setTimeout(600_000);

describe('work-item sessions hosted in tmux (real tmux, git, dev server, the real claude against the mock API)', () => {
  let env: WorkItemTestEnv;
  let userCheckout: string;
  const outer = `tl-outer-${process.pid}`;

  beforeAll(async () => {
    env = await setupWorkItemEnv();
    // The person's own checkout the registered conversation runs in: a git worktree of a clone of origin.
    const clone = join(env.dir, 'user-clone');
    git(env.dir, 'clone', '--quiet', env.origin, clone);
    userCheckout = join(env.dir, 'user-worktree');
    git(clone, 'worktree', 'add', '--quiet', '-b', 'issue-15', userCheckout);
    // the person's conversation there, held by the real claude
    await openClaudeConversation(env, userCheckout, CONV_15, OPENER);
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', outer, 'kill-server']);
    await env.dispose();
  });

  /** Runs `sessions attach` inside a detached tmux on another socket, as a person at a terminal would. */
  function attachInOuterTmux(name: string, extra: string[]): void {
    const cmd = [process.execPath, BIN, 'sessions', 'attach', '--work-item', ITEM, ...extra];
    const r = spawnSync(
      'tmux',
      [
        '-L',
        outer,
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        '120',
        '-y',
        '40',
        '--',
        'env',
        '-u',
        'TMUX',
        ...cmd,
      ],
      { env: { ...process.env, ...env.cliEnv }, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
  }

  const readOnlyClients = () =>
    env
      .tmux('list-clients', '-t', `=${env.tmuxName(ITEM)}`, '-F', '#{client_readonly}')
      .stdout.trim()
      .split('\n');

  async function deliver(id: string, text: string) {
    await deliverToWorkItem(env.client, env.queues, ITEM, { id, text, source: 'test' }, false);
  }

  async function status() {
    const handle = await runningWorkItem(env.client, ITEM);
    if (!handle) throw new Error('no running session');
    return handle.query(statusQuery);
  }

  it('register → list → start → deliver → pause/resume → close --keep-tmux → attach --read-only', async () => {
    // attach before any session record, then before the first spawn: clear errors, exit 1
    let r = await env.cli(['sessions', 'attach', '--work-item', ITEM]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no session record on this machine/);

    r = await env.cli([
      'sessions',
      'register',
      '--work-item',
      ITEM,
      '--harness',
      'claude',
      '--harness-session-id',
      CONV_15,
      '--cwd',
      userCheckout,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /registered github:octo\/repo#15: claude session 00000000-0000-4000-8000-000000000015/,
    );

    r = await env.cli(['sessions', 'attach', '--work-item', ITEM]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no tmux session is recorded yet/);

    r = await env.cli(['sessions', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^WORK ITEM\s+STATUS\s+SINCE\s+COST\s+LAST CONTROL/m);
    expect(r.stdout).toMatch(
      /github:octo\/repo#15\s+active\s+-\s+-\s+-\s+claude\s+00000000-0000-4000-8000-000000000015/,
    );
    r = await env.cli(['sessions', 'list', '--format', 'json']);
    const listed = JSON.parse(r.stdout) as {
      work_item: string;
      status: string;
      harness_session_id: string;
    }[];
    expect(listed).toEqual([
      expect.objectContaining({ work_item: ITEM, status: 'active', harness_session_id: CONV_15 }),
    ]);

    // start: a tmux session on the private socket running claude, resuming the conversation in its directory
    r = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`started ${ITEM} in tmux ${env.tmuxName(ITEM)} (socket ${env.socket})`);
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(ITEM)}`).code).toBe(0);
    const claude = paneProcess(env, ITEM);
    expect(claude.argv).toContain(`--resume=${CONV_15}`);
    expect(claude.cwd).toBe(userCheckout);
    expect(env.record(ITEM)).toMatchObject({ status: 'active', last_control: { command: 'start' } });

    // an observer attached read-only does not block delivery
    attachInOuterTmux('observer', ['--read-only']);
    await waitFor('a read-only client', () => readOnlyClients().includes('1'), 180_000);

    // the start enters the process graph's first node: its turn is the session's first event (the kickoff), in
    // the resumed conversation (the mock sees the person's earlier message)
    const kickoff = await env.agentCall((prompt) => isNodeCommand(prompt, ITEM, 'spec'));
    expect(messagesText(kickoff.body)).toContain(OPENER);
    await deliver('e1', 'hello from the issue');
    expect(messagesText((await env.agentCall(/^hello from the issue$/)).body)).toContain(OPENER);
    const record = env.record(ITEM);
    // The mock has the text as soon as it is submitted; the turn's result is written when it ends.
    const iterations = await waitFor(
      'the delivery recorded',
      () => {
        const dir = join(record?.session_dir ?? '', 'iterations', '0002_event');
        return existsSync(join(dir, 'result.json')) && readdirSync(join(dir, '..'));
      },
      180_000,
    );
    expect(iterations).toEqual(['0001_event', '0002_event']);
    const iterationFile = (n: string, file: string) =>
      readFileSync(join(record?.session_dir ?? '', 'iterations', n, file), 'utf8');
    expect(iterationFile('0001_event', 'prompt.txt')).toBe(`/the-loop:work-on ${ITEM} --phase spec`);
    expect(iterationFile('0002_event', 'prompt.txt')).toBe('hello from the issue');
    // the turn ended (the Stop hook's report): its reply and conversation are in result.json
    expect(JSON.parse(iterationFile('0002_event', 'result.json'))).toMatchObject({
      success: true,
      text: 'received: hello from the issue',
      harness_session_id: CONV_15,
    });

    // pause queues, resume delivers in order
    r = await env.cli(['sessions', 'pause', '--work-item', ITEM, '--no-comment']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/paused github:octo\/repo#15/);
    await deliver('e2', 'second while paused');
    await deliver('e3', 'third while paused');
    await deliver('e2', 'second while paused (duplicate delivery id)');
    await waitFor('two queued events', async () => (await status()).queued === 2, 180_000);
    await staysTrue(
      'no event typed while paused',
      () => !env.prompts().some((p) => p.includes('while paused')),
      1500,
    );
    r = await env.cli(['sessions', 'list', '--status', 'paused']);
    expect(r.stdout).toMatch(/github:octo\/repo#15\s+paused\s+-\s+(-|\$\d+\.\d\d)\s+pause/);

    r = await env.cli(['sessions', 'resume', '--work-item', ITEM, '--no-comment']);
    expect(r.code).toBe(0);
    await env.agentCall(/^third while paused$/);
    await waitFor('both delivered', async () => (await status()).queued === 0, 180_000);
    // each was a turn of its own, in order, and the duplicate delivery id was never typed
    expect(env.prompts().filter((p) => p.includes('while paused'))).toEqual([
      'second while paused',
      'third while paused',
    ]);

    // close --keep-tmux: transcript kept, harness ended
    r = await env.cli(['sessions', 'close', '--work-item', ITEM, '--keep-tmux']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ended the harness in tmux session/);
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(ITEM)}`).code).toBe(0);
    expect(
      env.tmux('display-message', '-p', '-t', `=${env.tmuxName(ITEM)}:`, '#{pane_dead}').stdout.trim(),
    ).toBe('1');
    expect(env.capture(ITEM)).toContain('received: hello from the issue');
    expect(env.record(ITEM)?.status).toBe('closed');
    r = await env.cli(['sessions', 'list', '--status', 'closed', '--format', 'json']);
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ work_item: ITEM, status: 'closed' })]);
    expect(existsSync(userCheckout)).toBe(true); // a registered directory is the person's, never removed

    // attach to the closed session: read-only, even without --read-only
    spawnSync('tmux', ['-L', outer, 'kill-server']);
    await waitFor('observer gone', () => readOnlyClients().join('') === '', 180_000);
    attachInOuterTmux('late', []);
    await waitFor('a read-only client on the closed session', () => readOnlyClients().includes('1'), 180_000);
    expect(readOnlyClients()).not.toContain('0');
  });

  it('start on an unregistered work item checks out a worktree of the shared clone and opens a new conversation', async () => {
    const item = 'github:octo/repo#20';
    const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const record = env.record(item);
    expect(record?.checkout?.strategy).toBe('worktree');
    const checkout = record?.checkout?.path ?? '';
    expect(checkout.startsWith(env.dirs.workspaceRoot)).toBe(true);
    expect(readFileSync(join(checkout, 'README.md'), 'utf8')).toBe('# repo\n');
    expect(git(record?.checkout?.clone ?? '', 'worktree', 'list')).toContain(checkout);
    expect(git(checkout, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(record?.checkout?.branch);
    expect(record?.harness_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const claude = paneProcess(env, item);
    expect(claude.argv).toContain(`--session-id=${record?.harness_session_id ?? ''}`);
    expect(claude.argv.some((a) => a.startsWith('--resume'))).toBe(false);
    expect(claude.cwd).toBe(checkout);
    // claude keeps that conversation under that id in that directory, once its kickoff turn is under way
    await env.agentCall((prompt) => isNodeCommand(prompt, item, 'spec'));
    await waitFor(
      'the transcript of the new conversation',
      () => existsSync(transcriptOf(checkout, record?.harness_session_id ?? '')),
      180_000,
    );
    // harness trust for the checkout
    const claudeJson = JSON.parse(readFileSync(join(env.dir, 'claude-config', '.claude.json'), 'utf8')) as {
      projects: Record<string, { hasTrustDialogAccepted: boolean }>;
    };
    expect(claudeJson.projects[checkout]?.hasTrustDialogAccepted).toBe(true);
    // a second start reports the running session instead of spawning another
    const again = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/is already running in tmux/);
  });

  it('survives a worker restart; a dead tmux server is detected and reported, and start brings it back', async () => {
    const item = 'github:octo/repo#21';
    expect((await env.cli(['sessions', 'start', '--work-item', item, '--no-comment'])).code).toBe(0);
    const conversation = env.record(item)?.harness_session_id ?? '';
    expect(paneProcess(env, item).argv).toContain(`--session-id=${conversation}`);

    await env.restartWorker();
    await deliverToWorkItem(
      env.client,
      env.queues,
      item,
      { id: 'a', text: 'after worker restart', source: 'test' },
      false,
    );
    await env.agentCall(/^after worker restart$/);
    // the mock has the text as the turn begins; the event is delivered once the turn ends
    const running = await runningWorkItem(env.client, item);
    await waitFor('the turn to end', async () => (await running?.query(statusQuery))?.queued === 0, 180_000);

    env.tmux('kill-server');
    await deliverToWorkItem(
      env.client,
      env.queues,
      item,
      { id: 'b', text: 'while tmux is down', source: 'test' },
      false,
    );
    const handle = await runningWorkItem(env.client, item);
    const lost = await waitFor(
      'tmux loss reported',
      async () => {
        const s = await handle?.query(statusQuery);
        return s?.tmuxLost ? s : null;
      },
      180_000,
    );
    expect(lost?.tmuxLost).toMatch(/tmux server .* is not running|is gone/);
    expect(lost?.queued).toBe(1);

    const r = await env.cli(['sessions', 'start', '--work-item', item, '--no-comment']);
    expect(r.code).toBe(0);
    expect(paneProcess(env, item).argv).toContain(`--resume=${conversation}`);
    // the queued event reaches the resumed conversation: the mock sees the turn from before the tmux loss
    const late = await env.agentCall(/^while tmux is down$/);
    expect(messagesText(late.body)).toContain('after worker restart');
  });

  it('start fails clearly when the harness binary is missing; control verbs need a running session', async () => {
    const missing = await setupWorkItemEnv({
      yaml: { harness: { claude: { command: '/nonexistent/claude' } } },
    });
    try {
      const reg = await missing.cli([
        'sessions',
        'register',
        '--work-item',
        'github:octo/repo#5',
        '--harness',
        'claude',
        '--harness-session-id',
        claudeSessionId(5),
        '--cwd',
        missing.dir,
      ]);
      expect(reg.code).toBe(0);
      expect(reg.stderr).toMatch(/warning: the claude harness \('\/nonexistent\/claude'\) is not on PATH/);
      const start = await missing.cli([
        'sessions',
        'start',
        '--work-item',
        'github:octo/repo#5',
        '--no-comment',
      ]);
      expect(start.code).toBe(1);
      expect(start.stderr).toMatch(/not on PATH — install it or set harness\.claude\.command/);
      const pause = await missing.cli([
        'sessions',
        'pause',
        '--work-item',
        'github:octo/repo#9',
        '--no-comment',
      ]);
      expect(pause.code).toBe(1);
      expect(pause.stderr).toMatch(/no running session/);
    } finally {
      await missing.dispose();
    }
  });
});
