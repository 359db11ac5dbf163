import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import type { GitHubClient, RepoRef } from '../../../src/github/api';
import { parseRepository } from '../../../src/github/api';
import { createOctokitGitHubClient, describeAuth, resolveGitHubAuth } from '../../../src/github/octokit';
import { nextPage } from '../../../src/github/octokit-shared';
import { FakeGitHub } from '../../support/fake-github/server';

const REPO: RepoRef = { host: 'github.com', owner: 'octo', repo: 'repo' };
const TOKEN = 'ghp_test_secret_value_123';

describe('Octokit GitHubClient against the fake GitHub', () => {
  const fake = new FakeGitHub();
  let gh: GitHubClient;
  const logs: string[] = [];

  beforeAll(async () => {
    const url = await fake.start();
    fake.token = TOKEN;
    gh = createOctokitGitHubClient({
      apiUrl: url,
      auth: { kind: 'token', token: TOKEN, source: 'GH_TOKEN' },
      throttle: false,
      log: (line) => logs.push(line),
    });
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.repos.clear();
    fake.failures = null;
  });

  it('lists labelled open items, paginating with Link, and answers 304 to an unchanged listing', async () => {
    fake.perPageCap = 2;
    for (let n = 1; n <= 5; n++)
      fake.addIssue('octo/repo', { number: n, labels: n === 3 ? ['bug'] : ['the-loop', 'bug'] });
    fake.addPull('octo/repo', { number: 6, head: 'issue-1', labels: ['the-loop', 'bug'] });
    const first = await gh.listOpenLabelledItems(REPO, ['the-loop', 'bug']);
    if (!first.modified) throw new Error('expected a listing');
    expect(first.data.map((i) => i.number).sort()).toEqual([1, 2, 4, 5, 6]);
    expect(first.data.find((i) => i.number === 6)?.isPullRequest).toBe(true);
    expect(first.etag).toMatch(/^"/);
    const mark = fake.requests.length;
    const second = await gh.listOpenLabelledItems(REPO, ['the-loop', 'bug'], first.etag ?? undefined);
    expect(second.modified).toBe(false);
    expect(fake.countSince(mark)).toMatchObject({ total: 1, conditional: 1, notModified: 1 });
    fake.addComment('octo/repo', 2, 'changes the listing');
    const third = await gh.listOpenLabelledItems(REPO, ['the-loop', 'bug'], first.etag ?? undefined);
    expect(third.modified).toBe(true);
    fake.perPageCap = 100;
  });

  it('a 304 costs no rate limit', async () => {
    fake.addIssue('octo/repo', { number: 1, labels: ['x'] });
    const first = await gh.listIssueComments(REPO, 1, null);
    const before = fake.rateLimit.remaining;
    const again = await gh.listIssueComments(
      REPO,
      1,
      null,
      first.modified ? (first.etag ?? undefined) : undefined,
    );
    expect(again.modified).toBe(false);
    expect(fake.rateLimit.remaining).toBe(before);
  });

  it('reads comments since a point, reviews, review comments and check runs', async () => {
    fake.addPull('octo/repo', { number: 7, head: 'feature', sha: 'abc123' });
    const c1 = fake.addComment('octo/repo', 7, 'first');
    fake.addComment('octo/repo', 7, 'second');
    fake.addReview('octo/repo', 7, 'looks good', 'APPROVED');
    fake.addReviewComment('octo/repo', 7, 'nit: rename');
    fake.addCheckRun('octo/repo', 'abc123', 'ci', 'failure');
    const comments = await gh.listIssueComments(REPO, 7, c1.updatedAt);
    expect(comments.modified && comments.data.map((c) => c.body)).toEqual(['first', 'second']);
    const later = await gh.listIssueComments(REPO, 7, '2999-01-01T00:00:00Z');
    expect(later.modified && later.data).toEqual([]);
    const reviews = await gh.listReviews(REPO, 7);
    expect(reviews.modified && reviews.data[0]).toMatchObject({ state: 'APPROVED', body: 'looks good' });
    const rc = await gh.listReviewComments(REPO, 7, null);
    expect(rc.modified && rc.data[0]).toMatchObject({ body: 'nit: rename', path: 'src/index.ts' });
    const runs = await gh.listCheckRuns(REPO, 'abc123');
    expect(runs.modified && runs.data[0]).toMatchObject({
      name: 'ci',
      conclusion: 'failure',
      status: 'completed',
    });
  });

  it('gets item state, PR details, closing issues, permissions', async () => {
    fake.addIssue('octo/repo', { number: 1, title: 'Crash', body: 'It crashes.', user: { login: 'alice' } });
    fake.addPull('octo/repo', { number: 2, head: 'loop/abc', body: 'Fixes #1', closingIssues: [1] });
    fake.repo('octo/repo').permissions.set('alice', 'maintain');
    fake.repo('octo/repo').permissions.set('bob', 'read');
    expect(await gh.getItemState(REPO, 1)).toMatchObject({
      state: 'open',
      isPullRequest: false,
      title: 'Crash',
      body: 'It crashes.',
      author: { login: 'alice', type: 'User' },
      url: 'https://github.com/octo/repo/issues/1',
    });
    fake.close('octo/repo', 1);
    expect(await gh.getItemState(REPO, 1)).toMatchObject({ state: 'closed', stateReason: 'completed' });
    expect(await gh.getItemState(REPO, 99)).toBeNull();
    fake.close('octo/repo', 2, { merged: true });
    expect(await gh.getItemState(REPO, 2)).toMatchObject({
      state: 'closed',
      isPullRequest: true,
      merged: true,
    });
    expect(await gh.getPullRequest(REPO, 2)).toMatchObject({
      headRef: 'loop/abc',
      body: 'Fixes #1',
      merged: true,
    });
    expect(await gh.closingIssues(REPO, 2)).toEqual([{ repo: REPO, number: 1 }]);
    expect(await gh.getPermission(REPO, 'alice')).toBe('maintain');
    expect(await gh.getPermission(REPO, 'bob')).toBe('read');
    expect(await gh.getPermission(REPO, 'mallory')).toBe('none');
  });

  it('posts comments, adds labels, creates and finds PRs by head', async () => {
    fake.addIssue('octo/repo', { number: 1 });
    const posted = await gh.postComment(REPO, 1, 'hello');
    expect(posted.url).toContain('#issuecomment-');
    await gh.addLabels(REPO, 1, ['the-loop']);
    expect(fake.repo('octo/repo').items.get(1)?.labels).toEqual(['the-loop']);
    const pr = await gh.createPullRequest(REPO, { title: 't', head: 'feature-x', base: 'main', body: 'b' });
    expect(pr).toMatchObject({ number: 2, headRef: 'feature-x', state: 'open' });
    expect((await gh.listOpenPullRequestsByHead(REPO, 'octo:feature-x')).map((p) => p.number)).toEqual([2]);
    expect(await gh.listOpenPullRequestsByHead(REPO, 'octo:other')).toEqual([]);
  });

  it('retries a 5xx and sends the token only in the Authorization header', async () => {
    fake.addIssue('octo/repo', { number: 1 });
    const retrying = createOctokitGitHubClient({
      apiUrl: fake.url,
      auth: { kind: 'token', token: TOKEN, source: 'GH_TOKEN' },
      throttle: false,
      retries: 2,
    });
    fake.failures = { status: 502, count: 1 };
    // plugin-retry waits (retryCount^2) seconds; one retry is ~1 s.
    expect(await retrying.getItemState(REPO, 1)).toMatchObject({ number: 1 });
    const last = fake.requests[fake.requests.length - 1];
    expect(last?.authorization).toBe(`token ${TOKEN}`);
    expect(fake.requests.some((r) => r.path.includes(TOKEN))).toBe(false);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('a bad token is a 401 error', async () => {
    fake.addIssue('octo/repo', { number: 1 });
    const bad = createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false });
    await expect(bad.getItemState(REPO, 1)).rejects.toMatchObject({ status: 401 });
  });
});

describe('auth and helpers', () => {
  const config = configSchema.parse({});
  it('prefers GH_TOKEN, then GITHUB_TOKEN, never printing the value', () => {
    const auth = resolveGitHubAuth(config, { GH_TOKEN: 'a-secret', GITHUB_TOKEN: 'b' });
    expect(auth).toMatchObject({ kind: 'token', source: 'GH_TOKEN' });
    expect(describeAuth(auth)).toBe('token from GH_TOKEN');
    expect(resolveGitHubAuth(config, { GITHUB_TOKEN: 'b' })).toMatchObject({ source: 'GITHUB_TOKEN' });
    expect(resolveGitHubAuth(config, {})).toEqual({ kind: 'none' });
  });
  it("in a hosted pane (no GH_TOKEN) reads the token from the pane's token file; a missing or empty one is none", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-auth-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'ghp_from_file\n', { mode: 0o600 });
    const auth = resolveGitHubAuth(config, { THE_LOOP_GITHUB_TOKEN_FILE: file });
    expect(auth).toEqual({ kind: 'token', token: 'ghp_from_file', source: 'THE_LOOP_GITHUB_TOKEN_FILE' });
    expect(describeAuth(auth)).toBe('token from THE_LOOP_GITHUB_TOKEN_FILE');
    expect(
      resolveGitHubAuth(config, { GH_TOKEN: 'env-wins', THE_LOOP_GITHUB_TOKEN_FILE: file }),
    ).toMatchObject({
      source: 'GH_TOKEN',
    });
    writeFileSync(file, '\n');
    expect(resolveGitHubAuth(config, { THE_LOOP_GITHUB_TOKEN_FILE: file })).toEqual({ kind: 'none' });
    expect(resolveGitHubAuth(config, { THE_LOOP_GITHUB_TOKEN_FILE: join(dir, 'gone') })).toEqual({
      kind: 'none',
    });
  });
  it('parses Link headers and repositories', () => {
    expect(nextPage('<https://x/y?page=3&per_page=2>; rel="next", <https://x/y?page=9>; rel="last"')).toBe(3);
    expect(nextPage('<https://x/y?page=1>; rel="first"')).toBeNull();
    expect(parseRepository('octo/repo')).toEqual(REPO);
    expect(parseRepository('ghe.example.com/octo/repo.git')).toEqual({
      host: 'ghe.example.com',
      owner: 'octo',
      repo: 'repo',
    });
    expect(parseRepository('not a repo')).toBeNull();
  });
});
