import { claudeSessionId } from '../../support/ids';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { runCli } from '../../support/cli';
import { FakeGitHub } from '../../support/fake-github/server';
import { uniqueQueue } from '../../support/temporal';
import { git, setupWorkItemEnv, type WorkItemTestEnv } from '../work-item/helpers';

const TOKEN = 'ghp_pr_create_token';
const REF = 'github:octo/repo#115';

describe('the-loop pr create (fake GitHub, real registry)', () => {
  let env: WorkItemTestEnv;
  let github: FakeGitHub;
  let checkout: string;

  beforeAll(async () => {
    github = new FakeGitHub();
    await github.start();
    github.token = TOKEN;
    github.repo('octo/repo');
    github.addIssue('octo/repo', { number: 115 });
    env = await setupWorkItemEnv({
      yaml: {
        github: { apiUrl: github.url },
        routing: { tmux: { socket: `tl-${uniqueQueue('pr')}` }, autoExecuteLabels: ['the-loop'] },
      },
    });
    checkout = join(env.dir, 'seed');
    git(checkout, 'checkout', '--quiet', '-b', 'issue-115-fix');
  });

  afterAll(async () => {
    await env?.dispose();
    await github.stop();
  });

  const prCreate = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(['pr', 'create', ...args], { env: { ...env.cliEnv, ...extra }, cwd: checkout });
  const posts = (suffix: RegExp) =>
    github.requests.filter((r) => r.method === 'POST' && suffix.test(r.path.split('?')[0] ?? ''));

  it('usage errors exit 2, no credentials exit 1, and nothing is opened', async () => {
    expect((await prCreate(['--work-item', 'github:octo/repo#x', '--title', 't'])).code).toBe(2);
    expect((await prCreate(['--work-item', REF])).code).toBe(2); // --title is required
    const both = await prCreate(['--work-item', REF, '--title', 't', '--body', 'b', '--body-file', '-']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /option '--body <text>' cannot be used with option '--body-file <file>'|option '--body-file <file>' cannot be used with option '--body <text>'/,
    );
    const noToken = await prCreate(['--work-item', REF, '--title', 't']);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/no GitHub credentials: set GH_TOKEN or GITHUB_TOKEN/);
    expect(posts(/\/pulls$/)).toEqual([]);
  });

  it('opens the PR from the checked-out branch and records it in the work item record, labelled', async () => {
    const registered = await env.cli([
      'sessions',
      'register',
      '--work-item',
      REF,
      '--harness',
      'claude',
      '--harness-session-id',
      claudeSessionId(115),
      '--cwd',
      checkout,
    ]);
    expect(registered.code).toBe(0);

    const r = await prCreate(['--work-item', REF, '--title', 'Fix #115', '--body-file', '-', '--draft'], {
      GH_TOKEN: TOKEN,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const number = Number(/\/pull\/(\d+)/.exec(r.stdout)?.[1] ?? /pulls\/(\d+)/.exec(r.stdout)?.[1]);
    expect(number).toBeGreaterThan(115);
    const prRef = `github:octo/repo#${number}`;
    expect(r.stdout).toContain(`recorded ${prRef} as delivering ${REF}`);

    // what GitHub received
    const pull = github.repo('octo/repo').items.get(number);
    expect(pull?.title).toBe('Fix #115');
    expect(pull?.pull?.head.ref).toBe('issue-115-fix');
    expect(pull?.pull?.base).toBe('main');
    expect(pull?.pull?.draft).toBe(true);
    expect(pull?.labels).toEqual(['the-loop']);
    expect(posts(/\/pulls$/)).toHaveLength(1);
    expect(posts(/\/pulls$/)[0]?.authorization).toContain(TOKEN);

    // what link-pr records: the record's pull_requests and a pr.linked event
    expect(env.record(REF)?.pull_requests).toEqual([prRef]);
    const events = readFileSync(join(env.dirs.eventsDir, `${refSlug(parseWorkItemRef(REF))}.jsonl`), 'utf8');
    expect(events).toMatch(new RegExp(`"pr\\.linked".*"${prRef.replace(/[#/]/g, '.')}"`));
  });

  it('a work item with no record still gets its PR, and exit 1 says to run link-pr', async () => {
    const r = await prCreate(
      ['--work-item', 'github:octo/repo#99', '--title', 'Orphan', '--head', 'other-branch'],
      { GH_TOKEN: TOKEN },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^opened /);
    expect(r.stderr).toMatch(
      /opened github:octo\/repo#\d+, but could not record it: .*no session record on this machine.* — run the-loop sessions link-pr/,
    );
    expect(posts(/\/pulls$/)).toHaveLength(2);
  });
});
