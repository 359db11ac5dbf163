import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import type { HookReport } from '../../../src/hook-channel/report';
import { startHookChannel, type HookChannel, type SessionAccess } from '../../../src/hook-channel/server';
import { workItemDirs } from '../../../src/work-item/paths';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { readRecord, writeRecord } from '../../../src/work-item/registry';
import { FakeGitHub } from '../../support/fake-github/server';
import {
  claudeEnv,
  messagesText,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { sessionRecord } from '../../support/registry-record';
import { waitFor } from '../../support/wait';

const ROOT = resolve(__dirname, '..', '..', '..');
const PLUGIN = join(ROOT, 'plugin');
const REF = 'github:octo/repo#41';
const BRANCH = 'issue-41-fix';
const TOKEN = 'ghp_plugin_test_token';
const REPLY = 'Pushed issue-41-fix; the pull request is up for review.';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The plugin in the REAL interactive Claude Code (node_modules' pinned CLI) in real tmux, against the local mock of
 * the Anthropic API and the fake GitHub: the plugin loads with --plugin-dir, /the-loop:work-on reads the work item
 * through the-loop, the turn hooks reach the hook channel, a real `git push` links the PR, and a hook whose worker
 * is gone leaves the agent's turn intact.
 */
describe('the Claude Code plugin in the real interactive claude', () => {
  let dir: string;
  let mock: MockAnthropic;
  let github: FakeGitHub;
  let channel: HookChannel | null = null;
  let access: SessionAccess;
  let workdir: string;
  let registryDir: string;
  const socket = `tl-plugin-${process.pid}`;
  const session = 'claude-plugin';
  const reports: HookReport[] = [];

  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const pane = () => tmux('capture-pane', '-p', '-J', '-t', `=${session}:`).stdout;
  const type = async (text: string) => {
    tmux('send-keys', '-t', `=${session}:`, '-l', text);
    await waitFor(`the pane to show '${text}'`, () => pane().includes(text), 60_000);
    tmux('send-keys', '-t', `=${session}:`, 'Enter');
  };
  /** Waits for a report of `event` after index `from`; a timeout shows the pane, which says what the TUI did. */
  const reported = (event: HookReport['event'], from = 0) =>
    waitFor(`a ${event} report`, () => reports.slice(from).find((r) => r.event === event), 60_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}; the pane shows:\n${pane()}`);
      },
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tl-plg-'));
    mock = await startMockAnthropic();
    github = new FakeGitHub();
    await github.start();
    github.token = TOKEN;
    github.addIssue('octo/repo', {
      number: 41,
      title: 'Crash on empty config',
      body: 'An empty the-loop.yaml crashes the CLI.',
      labels: ['the-loop'],
    });
    github.addComment('octo/repo', 41, 'Also happens with a file of blank lines.', { login: 'bob' });
    github.addPull('octo/repo', { number: 42, head: BRANCH, title: 'Fix the empty config crash' });

    // A checkout whose origin is a local bare repository: link-pr --discover then asks the work item's repository.
    const origin = join(dir, 'origin.git');
    git(dir, 'init', '--quiet', '--bare', '-b', 'main', origin);
    workdir = join(dir, 'work');
    git(dir, 'clone', '--quiet', origin, workdir);
    git(workdir, 'config', 'user.email', 't@example.com');
    git(workdir, 'config', 'user.name', 'T');
    writeFileSync(join(workdir, 'README.md'), '# repo\n');
    git(workdir, 'add', 'README.md');
    git(workdir, 'commit', '--quiet', '-m', 'init');
    git(workdir, 'push', '--quiet', 'origin', 'HEAD:main');

    const configFile = join(dir, 'the-loop.yaml');
    registryDir = join(dir, 'registry');
    writeFileSync(configFile, `github:\n  apiUrl: ${github.url}\nrouting:\n  registryDir: ${registryDir}\n`);
    const config = configSchema.parse({ github: { apiUrl: github.url }, routing: { registryDir } });
    // The session is registered for the checkout: the PostToolUse hook finds the work item by its cwd.
    writeRecord(workItemDirs(config, join(dir, 'state')), sessionRecord(REF, [], workdir));

    channel = await startHookChannel({
      dir: join(dir, 'hc'),
      onReport: (_session, report) => {
        reports.push(report);
      },
    });
    access = await channel.openSession(`work-item/${REF}`);

    const { env: claude } = claudeEnv(mock, { trustedDirs: [workdir] });
    const env: Record<string, string> = {
      ...claude,
      ...access.env,
      PATH: `${join(ROOT, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      GH_TOKEN: TOKEN,
      TERM: 'xterm-256color',
    };
    // The environment goes through a 0600 launch file, not tmux's own environment.
    const launch = join(dir, 'launch.sh');
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    writeFileSync(
      launch,
      [
        ...Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`),
        `cd ${quote(workdir)}`,
        `exec ${quote(realClaudeBin())} --plugin-dir ${quote(PLUGIN)}`,
      ].join('\n') + '\n',
      { mode: 0o600 },
    );
    const started = tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '200',
      '-y',
      '50',
      `bash ${quote(launch)}`,
    );
    if (started.status !== 0) throw new Error(`tmux: ${started.stderr}`);
  });

  afterAll(async () => {
    tmux('kill-server');
    await channel?.close();
    await mock?.close();
    await github?.stop();
  });

  it('loads with --plugin-dir: SessionStart reports the pane ready', async () => {
    const ready = await reported('ready');
    expect(ready).toMatchObject({ harness: 'claude', source: 'startup', cwd: workdir });
  });

  it('/the-loop:work-on reads the item through the-loop; the push links the PR; the turn ends with the reply', async () => {
    mock.reply(
      {
        toolUses: [
          {
            name: 'Bash',
            input: {
              command: `git checkout -q -b ${BRANCH} && git commit -q --allow-empty -m wip && git push -q -u origin ${BRANCH}`,
              description: 'Push the branch',
            },
          },
        ],
      },
      { text: REPLY },
    );
    const from = reports.length;
    await type(`/the-loop:work-on ${REF}`);

    const started = await reported('turn-started', from);
    expect(started).toMatchObject({ prompt: expect.stringContaining(`/the-loop:work-on ${REF}`) });

    // The model saw the work item as the-loop read it from the fake GitHub.
    const first = await waitFor('the first agent call', () => mock.agentCalls()[0], 60_000);
    const sent = messagesText(first);
    expect(sent).toContain('# Issue github:octo/repo#41: Crash on empty config');
    expect(sent).toContain('Also happens with a file of blank lines.');

    // Bash needs a human's approval: the Notification hook says so, and the test answers the prompt.
    const waiting = await reported('waiting', from);
    expect(waiting).toMatchObject({ reason: 'permission' });
    tmux('send-keys', '-t', `=${session}:`, 'Enter');

    const ended = await reported('turn-ended', from);
    expect(ended).toMatchObject({
      last_assistant_message: REPLY,
      harness_session_id: started.harness_session_id,
    });

    // PostToolUse after the real `git push` ran `the-loop sessions link-pr --discover` against the fake GitHub.
    const dirs = workItemDirs(configSchema.parse({ routing: { registryDir } }), join(dir, 'state'));
    const linked = await waitFor('the PR to be recorded', () => {
      const prs = readRecord(dirs, refSlug(parseWorkItemRef(REF)))?.pull_requests ?? [];
      return prs.length > 0 ? prs : null;
    });
    expect(linked).toEqual(['github:octo/repo#42']);
    expect(readFileSync(access.logFile, 'utf8')).toContain(
      `link-pr ${REF}: recorded github:octo/repo#42 as delivering ${REF}`,
    );
    expect(
      github.requests.some((r) => r.path.startsWith('/repos/octo/repo/pulls?') && r.status === 200),
    ).toBe(true);
  });

  it("/the-loop:work-on with a jira ref puts the-loop's clear message in front of the model", async () => {
    mock.reply({ text: 'the-loop does not track jira tickets.' });
    const calls = mock.agentCalls().length;
    const from = reports.length;
    await type('/the-loop:work-on jira:PROJ-12');
    await reported('turn-ended', from);
    const call = mock.agentCalls()[calls];
    expect(messagesText(call ?? null)).toContain(
      "'jira:PROJ-12' is a jira ref: the-loop reads GitHub work items only (github:OWNER/REPO#N).",
    );
  });

  it('/the-loop:work-on REF --phase spec (a process graph kickoff) reads the item by its ref and asks for the outcome', async () => {
    mock.reply({ text: 'Spec written and pushed.' });
    const calls = mock.agentCalls().length;
    const from = reports.length;
    await type(`/the-loop:work-on ${REF} --phase spec`);
    await reported('turn-ended', from);
    const sent = messagesText(mock.agentCalls()[calls] ?? null);
    expect(sent).toContain('# Issue github:octo/repo#41: Crash on empty config');
    expect(sent).toContain(`the-loop sessions outcome --work-item '${REF}' success`);
    expect(sent).toContain(`The arguments were: \`${REF} --phase spec\``);
  });

  it('with the worker down, the hooks exit 0, log, and the turn still completes', async () => {
    await channel?.close();
    channel = null;
    mock.reply({ text: 'Still here without a worker.' });
    const calls = mock.agentCalls().length;
    await type('are you there?');
    await waitFor('the reply in the pane', () => pane().includes('Still here without a worker.'), 60_000);
    expect(mock.agentCalls().length).toBe(calls + 1);
    // each hook tried for its retry window, then left its report in the session's spool for the next worker
    await waitFor(
      'the Stop hook to log that the worker is gone',
      () =>
        existsSync(access.logFile) &&
        /turn-ended: the worker is away; spooled/.test(readFileSync(access.logFile, 'utf8')),
      60_000,
    );
    expect(readFileSync(access.logFile, 'utf8')).toMatch(/turn-started: the worker is away; spooled/);
    const spooled = readFileSync(access.env.THE_LOOP_HOOK_SPOOL ?? '', 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as HookReport).event);
    expect(spooled).toEqual(['turn-started', 'turn-ended']);
    expect(pane()).not.toMatch(/hook error/i);
  });
});
