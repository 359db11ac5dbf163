import { claudeSessionId } from '../../support/ids';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { runCli } from '../../support/cli';
import { FakeGitHub } from '../../support/fake-github/server';
import { uniqueQueue } from '../../support/temporal';
import { git, setupWorkItemEnv, type WorkItemTestEnv } from '../work-item/helpers';

const TOKEN = 'ghp_link_pr_discover_token';
const REF = 'github:octo/repo#215';
const LABELS = ['the-loop', 'loop:auto'];
const BRANCH = 'issue-215-fix';

/**
 * `the-loop sessions link-pr --discover` end to end: the built CLI, run in real git checkouts whose origin is a
 * GitHub URL, asks the fake GitHub for the open pull requests whose head is the checkout's branch.
 */
describe('the-loop sessions link-pr --discover (fake GitHub, real git checkouts)', () => {
  let env: WorkItemTestEnv;
  let github: FakeGitHub;
  let gitConfig: string;

  beforeAll(async () => {
    github = new FakeGitHub();
    await github.start();
    github.token = TOKEN;
    github.repo('octo/repo');
    github.repo('alice/repo'); // alice's fork: holds no pull request of its own
    github.repo('octo/tools');
    github.addIssue('octo/repo', { number: 215 });
    github.addPull('octo/repo', { number: 20, head: BRANCH });
    github.addPull('octo/repo', { number: 21, head: BRANCH }); // a second open PR from the same branch
    github.addPull('octo/repo', { number: 22, head: BRANCH });
    github.close('octo/repo', 22);
    github.addPull('octo/repo', { number: 23, head: 'some-other-branch' });
    const fork = github.addPull('octo/repo', { number: 24, head: BRANCH });
    if (fork.pull) fork.pull.head.owner = 'alice';
    github.addPull('octo/repo', { number: 25, head: 'issue-215-forbidden' });
    github.addPull('octo/repo', { number: 26, head: 'issue-215-unknown-label' });
    github.addPull('octo/tools', { number: 5, head: BRANCH });
    github.addPull('octo/repo', { number: 27, head: 'detached-work' });
    env = await setupWorkItemEnv({
      yaml: {
        github: { apiUrl: github.url },
        routing: { tmux: { socket: `tl-${uniqueQueue('lpd')}` }, autoExecuteLabels: LABELS },
      },
    });
    // The checkouts' origins must stay GitHub URLs: a global config without the helpers' url.insteadOf.
    gitConfig = join(env.dir, 'gitconfig-plain');
    writeFileSync(gitConfig, '[user]\n\temail = t@example.com\n\tname = T\n[init]\n\tdefaultBranch = main\n');
  });

  afterAll(async () => {
    await env?.dispose();
    await github.stop();
  });

  /** A fresh `git init` checkout with one commit on `branch`, its origin at `origin`. */
  function checkout(name: string, origin: string, branch: string): string {
    const dir = mkdtempSync(join(env.dir, `${name}-`));
    mkdirSync(dir, { recursive: true });
    const run = (...args: string[]) =>
      git(dir, '-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args);
    run('init', '--quiet', '-b', 'main');
    run('remote', 'add', 'origin', origin);
    writeFileSync(join(dir, 'README.md'), `# ${name}\n`);
    run('add', 'README.md');
    run('commit', '--quiet', '-m', 'init');
    run('checkout', '--quiet', '-b', branch);
    return dir;
  }

  const linkPr = (cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(['sessions', 'link-pr', '--work-item', REF, '--discover', ...args], {
      env: { ...env.cliEnv, GIT_CONFIG_GLOBAL: gitConfig, GH_TOKEN: TOKEN, ...extra },
      cwd,
    });
  const labelPosts = () =>
    github.requests.filter((q) => q.method === 'POST' && /\/issues\/\d+\/labels$/.test(q.path));
  const pullListings = (from: number) =>
    github.requests.slice(from).filter((q) => q.method === 'GET' && /\/pulls\?/.test(q.path));
  const heads = (from: number) =>
    pullListings(from).map((q) => {
      const url = new URL(q.path, 'http://x');
      return `${url.pathname} ${url.searchParams.get('head') ?? ''}`;
    });
  const labelsOf = (repo: string, n: number) => github.repo(repo).items.get(n)?.labels;

  let main: string;

  it('exit 1 without a session record, and GitHub is asked nothing', async () => {
    main = checkout('main', 'git@github.com:octo/repo.git', BRANCH);
    const before = github.requests.length;
    const r = await linkPr(main, []);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /github:octo\/repo#215: no session record on this machine — register the session first/,
    );
    expect(github.requests.length).toBe(before);
  });

  it('records every open PR whose head is the checked-out branch, each labelled with every autoExecuteLabel', async () => {
    const registered = await env.cli([
      'sessions',
      'register',
      '--work-item',
      REF,
      '--harness',
      'claude',
      '--harness-session-id',
      claudeSessionId(215),
      '--cwd',
      main,
    ]);
    expect(registered.code).toBe(0);

    const from = github.requests.length;
    const r = await linkPr(main, []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `recorded github:octo/repo#20 as delivering ${REF}`,
        `recorded github:octo/repo#21 as delivering ${REF}`,
        '',
      ].join('\n'),
    );
    // origin git@github.com:octo/repo.git is the repository asked, for octo:<branch>
    expect(heads(from)).toEqual([`/repos/octo/repo/pulls octo:${BRANCH}`]);
    expect(env.record(REF)?.pull_requests).toEqual(['github:octo/repo#20', 'github:octo/repo#21']);
    // the fake saw one labels POST per recorded PR, with the token, and every label landed
    const posts = github.requests.slice(from).filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.path)).toEqual([
      '/repos/octo/repo/issues/20/labels',
      '/repos/octo/repo/issues/21/labels',
    ]);
    expect(posts.every((q) => q.status === 200 && q.authorization?.includes(TOKEN))).toBe(true);
    expect(labelsOf('octo/repo', 20)).toEqual(LABELS);
    expect(labelsOf('octo/repo', 21)).toEqual(LABELS);
    // the closed PR, the other branch's and the fork's are left alone
    for (const n of [22, 23, 24]) expect(labelsOf('octo/repo', n)).toEqual([]);
    const events = readFileSync(join(env.dirs.eventsDir, `${refSlug(parseWorkItemRef(REF))}.jsonl`), 'utf8');
    expect(events.match(/"pr\.linked"/g)).toHaveLength(2);
  });

  it('a re-run reports them as already recorded, exits 0 and asks GitHub for no labels', async () => {
    // a label someone removed on purpose stays off
    const twenty = github.repo('octo/repo').items.get(20);
    if (twenty) twenty.labels = ['the-loop'];
    const posted = labelPosts().length;
    const from = github.requests.length;
    const r = await linkPr(main, []);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        `github:octo/repo#20 is already recorded as delivering ${REF}`,
        `github:octo/repo#21 is already recorded as delivering ${REF}`,
        '',
      ].join('\n'),
    );
    expect(labelPosts()).toHaveLength(posted);
    expect(github.requests.slice(from).every((q) => q.method === 'GET')).toBe(true);
    expect(labelsOf('octo/repo', 20)).toEqual(['the-loop']);
    expect(env.record(REF)?.pull_requests).toEqual(['github:octo/repo#20', 'github:octo/repo#21']);
  });

  it("--head-owner: a fork checkout finds the fork's PR in the work item's repository", async () => {
    const fork = checkout('fork', 'git@github.com:alice/repo.git', BRANCH);
    const from = github.requests.length;
    const r = await linkPr(fork, ['--head-owner', 'alice']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`recorded github:octo/repo#24 as delivering ${REF}\n`);
    // the fork (origin) is asked for its own branch, the work item's repository for alice:<branch>
    expect(heads(from)).toEqual([
      `/repos/alice/repo/pulls alice:${BRANCH}`,
      `/repos/octo/repo/pulls alice:${BRANCH}`,
    ]);
    expect(labelsOf('octo/repo', 24)).toEqual(LABELS);
    expect(env.record(REF)?.pull_requests).toEqual([
      'github:octo/repo#20',
      'github:octo/repo#21',
      'github:octo/repo#24',
    ]);
  });

  it("--head-owner in the upstream's checkout asks it for both heads", async () => {
    const from = github.requests.length;
    const r = await linkPr(main, ['--head-owner', 'alice']);
    expect(r.code).toBe(0);
    expect(heads(from)).toEqual([
      `/repos/octo/repo/pulls octo:${BRANCH}`,
      `/repos/octo/repo/pulls alice:${BRANCH}`,
    ]);
    expect(r.stdout.trim().split('\n')).toEqual([
      `github:octo/repo#20 is already recorded as delivering ${REF}`,
      `github:octo/repo#21 is already recorded as delivering ${REF}`,
      `github:octo/repo#24 is already recorded as delivering ${REF}`,
    ]);
  });

  it('none found is exit 0 and records nothing', async () => {
    const lonely = checkout('lonely', 'git@github.com:octo/repo.git', 'no-pr-yet');
    const posted = labelPosts().length;
    const r = await linkPr(lonely, []);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`no open pull request found for ${REF}'s branch — nothing recorded\n`);
    expect(labelPosts()).toHaveLength(posted);
    expect(env.record(REF)?.pull_requests).toHaveLength(3);
  });

  it('a label refusal (403 or 422) keeps the link, exits 0 and says note: on stderr', async () => {
    const repo = github.repo('octo/repo');
    repo.refuseLabels = { status: 403, message: 'Resource not accessible by integration' };
    try {
      const forbidden = checkout('forbidden', 'git@github.com:octo/repo.git', 'issue-215-forbidden');
      const r = await linkPr(forbidden, []);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`recorded github:octo/repo#25 as delivering ${REF}\n`);
      expect(r.stderr).toMatch(
        /^note: GitHub refused the label\(s\) the-loop, loop:auto on github:octo\/repo#25 \(.*Resource not accessible by integration.*\): add them by hand\n$/,
      );
      expect(labelPosts().at(-1)).toMatchObject({ path: '/repos/octo/repo/issues/25/labels', status: 403 });
    } finally {
      repo.refuseLabels = null;
    }
    repo.strictLabels = true; // only labels that exist may be added: neither does
    try {
      const unknown = checkout('unknown', 'git@github.com:octo/repo.git', 'issue-215-unknown-label');
      const r = await linkPr(unknown, []);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`recorded github:octo/repo#26 as delivering ${REF}\n`);
      expect(r.stderr).toMatch(/^note: GitHub refused the label\(s\) .* on github:octo\/repo#26 .*\n$/);
      expect(labelPosts().at(-1)).toMatchObject({ path: '/repos/octo/repo/issues/26/labels', status: 422 });
    } finally {
      repo.strictLabels = false;
    }
    expect(labelsOf('octo/repo', 25)).toEqual([]);
    expect(labelsOf('octo/repo', 26)).toEqual([]);
    expect(env.record(REF)?.pull_requests.slice(-2)).toEqual(['github:octo/repo#25', 'github:octo/repo#26']);
    // and a re-run still asks for no labels: the refusal is not retried
    const posted = labelPosts().length;
    const again = await linkPr(
      checkout('forbidden-again', 'git@github.com:octo/repo.git', 'issue-215-forbidden'),
      [],
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/is already recorded/);
    expect(labelPosts()).toHaveLength(posted);
  });

  it('a detached HEAD is a usage error without --branch, and --branch names the head', async () => {
    const detached = checkout('detached', 'git@github.com:octo/repo.git', 'detached-work');
    git(detached, 'checkout', '--quiet', '--detach');
    const from = github.requests.length;
    let r = await linkPr(detached, []);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--discover: HEAD is detached .*pass --branch/);
    expect(github.requests.length).toBe(from);
    r = await linkPr(detached, ['--branch', 'detached-work']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`recorded github:octo/repo#27 as delivering ${REF}\n`);
  });

  it('--repository, or an origin in another repository, looks there; an untrusted origin falls back', async () => {
    // origin on github.com in octo/tools: that repository is asked, and its PR recorded by its full ref
    const tools = checkout('tools', 'https://github.com/octo/tools.git', BRANCH);
    let from = github.requests.length;
    let r = await linkPr(tools, []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`recorded github:octo/tools#5 as delivering ${REF}\n`);
    expect(heads(from)).toEqual([`/repos/octo/tools/pulls octo:${BRANCH}`]);
    expect(labelsOf('octo/tools', 5)).toEqual(LABELS);

    // an origin on a host that is not trusted: the work item's repository is asked instead
    const elsewhere = checkout('elsewhere', 'https://git.example.com/octo/tools.git', BRANCH);
    from = github.requests.length;
    r = await linkPr(elsewhere, []);
    expect(r.code).toBe(0);
    expect(heads(from)).toEqual([`/repos/octo/repo/pulls octo:${BRANCH}`]);

    // --repository overrides the origin
    from = github.requests.length;
    r = await linkPr(elsewhere, ['--repository', 'octo/tools']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`github:octo/tools#5 is already recorded as delivering ${REF}\n`);
    expect(heads(from)).toEqual([`/repos/octo/tools/pulls octo:${BRANCH}`]);
    expect((await linkPr(elsewhere, ['--repository', 'not a repo'])).code).toBe(2);
  });

  it('--branch, --head-owner and --repository without --discover are usage errors', async () => {
    const r = await runCli(
      ['sessions', 'link-pr', '--work-item', REF, '--pull-request', '20', '--branch', BRANCH],
      { env: { ...env.cliEnv, GH_TOKEN: TOKEN }, cwd: main },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/go with --discover/);
  });
});
