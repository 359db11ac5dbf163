import { claudeSessionId } from '../../support/ids';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTemporalGateway } from '../../../src/bridge/temporal-gateway';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { fingerprint } from '../../../src/work-item/env';
import { readPortable } from '../../../src/work-item/portable';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { FakeGitHub } from '../../support/fake-github/server';
import { QUIET_CLAUDE_ENV, realClaudeBin } from '../../support/mock-anthropic';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import {
  allCommandLines,
  CLAUDE_FORWARDED,
  git,
  paneEnvironment,
  paneProcess,
  setupWorkItemEnv,
  type WorkItemTestEnv,
} from './helpers';
import { waitFor } from '../../support/wait';

const SECRET = 'ghp_SECRETVALUE_do_not_leak_48151623';
const OLD = 'http://proxy-old.invalid:3128';
const NEW = 'http://proxy-new.invalid:8080';

// each test runs CLI processes one after another, each loading the Temporal client: many seconds apiece on a
// loaded machine, which took these past jest's default; every wait in here is for a condition
jest.setTimeout(600_000);

describe('sessions restart (environment roll-out, verified) and the-loop status drift line', () => {
  let env: WorkItemTestEnv;
  const ITEM = 'github:octo/repo#50';
  let tamper: string;

  beforeAll(async () => {
    // The worker (this process) holds the credential, as a daemon started from a shell with a token would.
    process.env.GH_TOKEN = SECRET;
    const dir = join(tmpdir(), `wi-wrapper-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    tamper = join(dir, 'tamper');
    const wrapper = join(dir, 'claude-wrapper');
    // A launcher that rewrites a forwarded value when told to: the relaunch must notice.
    writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ -f '${tamper}' ]; then HTTPS_PROXY=http://tampered.invalid; export HTTPS_PROXY; fi\nexec '${realClaudeBin()}' "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    env = await setupWorkItemEnv({
      envFileLines: [`HTTPS_PROXY=${OLD}`, `GH_TOKEN=${SECRET}`, 'JIRA_API_TOKEN=jira-secret-value'],
      yaml: { harness: { claude: { command: wrapper } } },
    });
  });

  /** What the pane is given: claude's names (the mock's URL, no telemetry), then the proxy. */
  const forwardedNames = (...names: string[]) => `[${[...CLAUDE_FORWARDED, ...names].join(', ')}]`;

  afterAll(async () => {
    delete process.env.GH_TOKEN;
    await env.dispose();
  });

  it('restart --all rolls a changed forwarded value onto the running pane, in place, and proves it', async () => {
    expect((await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment'])).code).toBe(0);
    const conversation = env.record(ITEM)?.harness_session_id ?? '';
    expect(paneProcess(env, ITEM).argv).toContain(`--session-id=${conversation}`);
    // the kickoff turn ends first: only a conversation with a message in its transcript can be resumed
    await waitFor(
      'the kickoff turn to end',
      async () => {
        const s = await (await runningWorkItem(env.client, ITEM))?.query(statusQuery);
        return s?.delivered === 1 && s.queued === 0;
      },
      180_000,
    );
    const first = paneEnvironment(env, ITEM);
    expect(first.vars.get('HTTPS_PROXY')).toBe(OLD);
    expect(first.vars.has('GH_TOKEN')).toBe(false);
    expect(first.vars.has('JIRA_API_TOKEN')).toBe(false);
    const sessionId = env.tmux(
      'display-message',
      '-p',
      '-t',
      `=${env.tmuxName(ITEM)}:`,
      '#{session_id}',
    ).stdout;

    let status = await env.cli(['status']);
    expect(status.stdout).not.toMatch(/stale environment/);

    env.writeEnvFile(`HTTPS_PROXY=${NEW}`, `GH_TOKEN=${SECRET}`, 'JIRA_API_TOKEN=jira-secret-value');
    status = await env.cli(['status']);
    expect(status.stdout).toContain(
      'sessions 1 of 1 running with a stale environment — `the-loop sessions restart --all`',
    );

    const dry = await env.cli(['sessions', 'restart', '--all', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${ITEM} would be restarted`);
    expect(paneEnvironment(env, ITEM).pid).toBe(first.pid);

    const r = await env.cli(['sessions', 'restart', '--all']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `restarting 1 session(s): forwarding ${CLAUDE_FORWARDED.length + 1} variable(s) ${forwardedNames('HTTPS_PROXY')}, keeping out 10 [ANTHROPIC_API_KEY, CURSOR_API_KEY, GH_TOKEN, GITHUB_TOKEN, JIRA_API_TOKEN, OPENAI_API_KEY, SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, TEMPORAL_API_KEY, THE_LOOP_WEBHOOK_SECRET]`,
        `${ITEM} restarted`,
        '',
      ].join('\n'),
    );
    const after = paneEnvironment(env, ITEM);
    expect(after.pid).not.toBe(first.pid);
    expect(after.vars.get('HTTPS_PROXY')).toBe(NEW);
    expect(after.vars.has('GH_TOKEN')).toBe(false);
    expect(after.vars.has('JIRA_API_TOKEN')).toBe(false);
    expect(env.tmux('display-message', '-p', '-t', `=${env.tmuxName(ITEM)}:`, '#{session_id}').stdout).toBe(
      sessionId,
    );
    // the relaunched claude resumes the same conversation in the same directory
    const relaunched = paneProcess(env, ITEM);
    expect(relaunched.argv).toContain(`--resume=${conversation}`);
    expect(relaunched.cwd).toBe(env.record(ITEM)?.cwd);
    status = await env.cli(['status']);
    expect(status.stdout).not.toMatch(/stale environment/);

    const json = await env.cli(['sessions', 'restart', '--work-item', ITEM, '--format', 'json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      forwarded: { name: string; fingerprint: string }[];
      keptOut: string[];
      sessions: { workItem: string; outcome: string }[];
    };
    expect(parsed.forwarded).toEqual([
      { name: 'ANTHROPIC_BASE_URL', fingerprint: fingerprint(env.mock.url) },
      { name: 'NO_PROXY', fingerprint: fingerprint('127.0.0.1,localhost') },
      ...Object.entries(QUIET_CLAUDE_ENV).map(([name, value]) => ({ name, fingerprint: fingerprint(value) })),
      { name: 'HTTPS_PROXY', fingerprint: fingerprint(NEW) },
    ]);
    expect(parsed.keptOut).toContain('GH_TOKEN');
    expect(parsed.sessions).toEqual([expect.objectContaining({ workItem: ITEM, outcome: 'restarted' })]);

    // no value in any output, nor in any process's argv
    const values = [SECRET, NEW, OLD, 'jira-secret-value', env.apiKey];
    for (const text of [r.stdout, r.stderr, json.stdout, json.stderr, dry.stdout, status.stdout]) {
      for (const value of values) expect(text).not.toContain(value);
    }
    for (const line of allCommandLines()) {
      for (const value of values) expect(line).not.toContain(value);
    }
  });

  it('the worker re-reads the-loop.yaml at a restart: a name newly forwarded there reaches the relaunched pane', async () => {
    const raw = parse(readFileSync(env.configFile, 'utf8')) as { env: { sessionPassthrough: string[] } };
    const original = stringify(raw);
    raw.env.sessionPassthrough = [...raw.env.sessionPassthrough, 'HTTP_PROXY'];
    writeFileSync(env.configFile, stringify(raw));
    env.writeEnvFile(`HTTPS_PROXY=${NEW}`, `HTTP_PROXY=${NEW}`, `GH_TOKEN=${SECRET}`);
    try {
      expect(paneEnvironment(env, ITEM).vars.has('HTTP_PROXY')).toBe(false);
      const r = await env.cli(['sessions', 'restart', '--work-item', ITEM]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `forwarding ${CLAUDE_FORWARDED.length + 2} variable(s) ${forwardedNames('HTTPS_PROXY', 'HTTP_PROXY')}`,
      );
      // the verification passed against what the worker applied: the relaunched pane holds it
      expect(paneEnvironment(env, ITEM).vars.get('HTTP_PROXY')).toBe(NEW);
    } finally {
      writeFileSync(env.configFile, original);
      env.writeEnvFile(`HTTPS_PROXY=${NEW}`, `GH_TOKEN=${SECRET}`, 'JIRA_API_TOKEN=jira-secret-value');
    }
  });

  it('a relaunch that does not hold the declared environment is named, and exits non-zero', async () => {
    writeFileSync(tamper, '');
    try {
      const r = await env.cli(['sessions', 'restart', '--work-item', ITEM]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `${ITEM} restarted with a mismatched environment: HTTPS_PROXY differs (should be ${fingerprint(NEW)})`,
      );
      expect(r.stderr).toMatch(/do not hold the declared environment: github:octo\/repo#50 \(HTTPS_PROXY\)/);
      expect(r.stdout + r.stderr).not.toContain('tampered');
    } finally {
      rmSync(tamper, { force: true });
    }
  });

  it('skips what is not running; bare, doubled and malformed selections exit 2', async () => {
    expect(
      (
        await env.cli([
          'sessions',
          'close',
          '--work-item',
          'github:octo/repo#51',
          '--keep-tmux',
          '--kill-tmux',
        ])
      ).code,
    ).toBe(2);
    expect(
      (
        await env.cli([
          'sessions',
          'register',
          '--work-item',
          'github:octo/repo#51',
          '--harness',
          'claude',
          '--harness-session-id',
          claudeSessionId(51),
          '--cwd',
          env.dir,
        ])
      ).code,
    ).toBe(0);
    const r = await env.cli(['sessions', 'restart', '--work-item', 'github:octo/repo#51']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'github:octo/repo#51 skipped — not running — `the-loop sessions start` brings a stopped session up',
    );
    expect((await env.cli(['sessions', 'restart'])).code).toBe(2);
    expect((await env.cli(['sessions', 'restart', '--all', '--work-item', ITEM])).code).toBe(2);
    expect((await env.cli(['sessions', 'restart', '--all', '--format', 'xml'])).code).toBe(2);
    expect((await env.cli(['sessions', 'restart', '--work-item', 'octo/repo#1'])).code).toBe(2);
  });

  it('"unverified" where the host will not report the environment; refuses with no declared environment', async () => {
    const blind = await setupWorkItemEnv({ deps: { procRoot: '/nonexistent-proc' } });
    try {
      expect(
        (await blind.cli(['sessions', 'start', '--work-item', 'github:octo/repo#52', '--no-comment'])).code,
      ).toBe(0);
      expect(paneProcess(blind, 'github:octo/repo#52').argv[0]).toBe(realClaudeBin());
      const r = await blind.cli(['sessions', 'restart', '--all']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('github:octo/repo#52 restarted, environment unverified');
    } finally {
      await blind.dispose();
    }
    const bare = await setupWorkItemEnv({ yaml: { env: {} } });
    try {
      const r = await bare.cli(['sessions', 'restart', '--all']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /refusing to restart: neither env.file nor env.sessionPassthrough is configured/,
      );
    } finally {
      await bare.dispose();
    }
  });
});

describe('sessions cleanup and the keyword comments', () => {
  let env: WorkItemTestEnv;
  let github: FakeGitHub;
  const ITEM = 'github:octo/repo#60';

  beforeAll(async () => {
    github = new FakeGitHub();
    await github.start();
    github.token = 'ghp_cleanup_token';
    github.addIssue('octo/repo', { number: 60 });
    github.addIssue('octo/repo', { number: 64, labels: ['loop:spec'] });
    env = await setupWorkItemEnv({
      yaml: { github: { apiUrl: github.url }, workspace: { keepCheckoutOnClose: true } },
    });
  });

  afterAll(async () => {
    await env.dispose();
    await github.stop();
  });

  const token = { GH_TOKEN: 'ghp_cleanup_token' };

  it('cleanup removes tmux sessions, checkout and local record, keeps the portable record; nothing left is fine', async () => {
    let r = await env.cli(['sessions', 'start', '--work-item', ITEM], token);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`commented 'the-loop start' on ${ITEM}`);
    const comments = github.repo('octo/repo').comments.filter((c) => c.issue === 60);
    expect(comments.map((c) => c.body)).toEqual([
      expect.stringMatching(/^the-loop start\n\n<!-- the-loop:automated -->$/),
    ]);
    const record = env.record(ITEM);
    const checkout = record?.checkout?.path ?? '';
    const sharedClone = record?.checkout?.clone ?? '';
    expect((await env.cli(['sessions', 'link-pr', '--work-item', ITEM, '--pull-request', '61'])).code).toBe(
      0,
    );
    // a PR endpoint's own tmux session, as the dispatcher opens for a PR delivering the work item
    env.tmux('new-session', '-d', '-s', env.tmuxName('github:octo/repo#61'), '--', 'cat');

    r = await env.cli(['sessions', 'cleanup', '--work-item', ITEM, '--no-comment']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `ended github:octo/repo#61, ${ITEM} — their tmux sessions and transcripts are gone`,
        `removed the workspace checkout under ${env.dirs.workspaceRoot} — uncommitted work in it is gone`,
        'removed the machine-local session record',
        `cleaned up ${ITEM} — its portable record (control, poll, graph) is kept, and nothing remote was touched`,
        '',
      ].join('\n'),
    );
    expect(github.repo('octo/repo').comments.filter((c) => c.issue === 60)).toHaveLength(1);
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(ITEM)}`).code).not.toBe(0);
    expect(env.tmux('has-session', '-t', `=${env.tmuxName('github:octo/repo#61')}`).code).not.toBe(0);
    expect(existsSync(checkout)).toBe(false);
    expect(existsSync(join(sharedClone, 'HEAD'))).toBe(true);
    expect(env.record(ITEM)).toBeNull();
    const portable = readPortable(env.dirs, refSlug(parseWorkItemRef(ITEM)));
    expect(portable).toMatchObject({
      control: { armed: false, last: { command: 'cleanup' } },
      graph: { node: 'cleanup' },
    });

    // nothing to clean up is normal; the comment is posted with the marker
    r = await env.cli(['sessions', 'cleanup', '--work-item', ITEM], token);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/nothing to clean up for github:octo\/repo#60/);
    expect(r.stdout).toContain(`commented 'the-loop cleanup' on ${ITEM}`);
  });

  it('a checkout a crash left behind is found from the ref alone; a failing post only warns', async () => {
    const item = 'github:octo/repo#62';
    expect((await env.cli(['sessions', 'start', '--work-item', item, '--no-comment'])).code).toBe(0);
    const checkout = env.record(item)?.checkout?.path ?? '';
    // the record is lost (a crash), the checkout stays behind
    rmSync(join(env.dirs.registryDir, `${refSlug(parseWorkItemRef(item))}.json`));
    github.failures = { status: 500, count: 50 };
    const r = await env.cli(['sessions', 'cleanup', '--work-item', item], token);
    github.failures = null;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`removed the workspace checkout under ${env.dirs.workspaceRoot}`);
    expect(r.stderr).toMatch(/warning: could not comment 'the-loop cleanup' on github:octo\/repo#62/);
    expect(existsSync(checkout)).toBe(false);
    await waitFor(
      'no tmux session',
      () => env.tmux('has-session', '-t', `=${env.tmuxName(item)}`).code !== 0,
      180_000,
    );
  });

  it('stop takes the close path and disarms; --keep-checkout setting honoured by close', async () => {
    const item = 'github:octo/repo#63';
    expect((await env.cli(['sessions', 'start', '--work-item', item, '--no-comment'])).code).toBe(0);
    const checkout = env.record(item)?.checkout?.path ?? '';
    const r = await env.cli(['sessions', 'stop', '--work-item', item]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`stopped ${item}`);
    expect(r.stderr).toMatch(/warning: not commented 'the-loop stop'/);
    expect(env.record(item)).toMatchObject({ status: 'closed', last_control: { command: 'stop' } });
    expect(existsSync(checkout)).toBe(true); // workspace.keepCheckoutOnClose: true
    expect(readPortable(env.dirs, refSlug(parseWorkItemRef(item)))?.control).toMatchObject({ armed: false });
    const again = await env.cli(['sessions', 'close', '--work-item', item]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already closed/);
  });

  it('stop and cleanup keywords act with no session running, exactly as the CLI verbs do', async () => {
    const stopped = 'github:octo/repo#64';
    const never = 'github:octo/repo#65';
    expect((await env.cli(['sessions', 'start', '--work-item', stopped, '--no-comment'])).code).toBe(0);
    const checkout = env.record(stopped)?.checkout?.path ?? '';
    expect((await env.cli(['sessions', 'stop', '--work-item', stopped, '--no-comment'])).code).toBe(0);
    expect(existsSync(checkout)).toBe(true);

    const meta = (workItem: string) => ({
      by: 'Codertocat',
      key: `k-${workItem}`,
      subject: workItem,
      allowStart: false,
    });
    // a bridge without this machine's host layer finds nothing to act on
    const remote = createTemporalGateway(env.client, env.queues);
    expect(await remote.control(stopped, 'cleanup', meta(stopped))).toBe('not-running');
    expect(existsSync(checkout)).toBe(true);

    const branch = env.record(stopped)?.checkout?.branch ?? '';
    const client = createOctokitGitHubClient({
      apiUrl: github.url,
      auth: { kind: 'token', token: token.GH_TOKEN, source: 'GH_TOKEN' },
      throttle: false,
    });
    const gateway = createTemporalGateway(env.client, env.queues, {
      local: { config: env.config, stateDir: env.stateDir, github: client },
    });
    expect(await gateway.control(stopped, 'cleanup', meta(stopped))).toBe('signalled');
    // the graph's cleanup transition, as with a session: the label, and the node checked in on the branch
    expect(github.repo('octo/repo').items.get(64)?.labels).toEqual(['loop:cleanup']);
    const state = git(env.origin, 'show', `${branch}:docs/specs/64/work-item-state.json`);
    expect(JSON.parse(state)).toMatchObject({ node: 'cleanup', previous: 'spec' });
    expect(existsSync(checkout)).toBe(false);
    expect(env.record(stopped)).toBeNull();
    expect(readPortable(env.dirs, refSlug(parseWorkItemRef(stopped)))).toMatchObject({
      control: { armed: false, last: { command: 'cleanup', by: 'Codertocat', via: 'comment' } },
      graph: { node: 'cleanup' },
    });

    expect(await gateway.control(never, 'stop', meta(never))).toBe('signalled');
    expect(readPortable(env.dirs, refSlug(parseWorkItemRef(never)))?.control).toMatchObject({
      armed: false,
      last: { command: 'stop', by: 'Codertocat', via: 'comment' },
    });
    // pause and resume have nothing to act on without a session, as on the CLI
    expect(await gateway.control(never, 'pause', meta(never))).toBe('not-running');
  });
});
