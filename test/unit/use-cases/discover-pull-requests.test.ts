import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitHubClient, PullRequestSummary, RepoRef } from '../../../src/github/api';
import { EXIT } from '../../../src/errors';
import { discoverPullRequests } from '../../../src/use-cases/discover-pull-requests';
import { refusal } from '../../support/cli-refusal';

const ITEM = 'github:octo/repo#7';

/**
 * GitHub at its port: answers `listOpenPullRequestsByHead` from a table keyed `host/owner/repo head`, and records
 * every question asked.
 */
function fakeGitHub(open: Record<string, number[]> = {}) {
  const asked: string[] = [];
  const pr = (number: number): PullRequestSummary => ({
    number,
    url: `https://example.invalid/pull/${number}`,
    headRef: 'feature',
    headOwner: null,
    state: 'open',
    merged: false,
    labels: [],
  });
  const port: Pick<GitHubClient, 'listOpenPullRequestsByHead'> = {
    listOpenPullRequestsByHead: (repo: RepoRef, head: string) => {
      const key = `${repo.host}/${repo.owner}/${repo.repo} ${head}`;
      asked.push(key);
      return Promise.resolve((open[key] ?? []).map(pr));
    },
  };
  return { github: port as GitHubClient, asked };
}

/** A real git checkout on `branch`, with `origin` at `url` (or none), as the current directory for the test. */
function checkout(branch: string | null, url: string | null): void {
  const dir = mkdtempSync(join(tmpdir(), 'uc-discover-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '--quiet');
  if (branch) git('checkout', '--quiet', '-b', branch);
  else {
    git('commit', '--quiet', '--allow-empty', '-m', 'first');
    git('checkout', '--quiet', '--detach');
  }
  if (url) git('remote', 'add', 'origin', url);
  process.chdir(dir);
}

describe('discoverPullRequests', () => {
  const home = process.cwd();
  afterEach(() => process.chdir(home));

  it('asks the given repository for its open pull requests from the branch; answers canonical refs, never the work item itself', async () => {
    const { github, asked } = fakeGitHub({
      'github.com/Octo/Repo Octo:feature': [7, 12, 13],
    });
    const found = await discoverPullRequests(ITEM, { branch: 'feature', repository: 'Octo/Repo' }, github);
    expect(asked).toEqual(['github.com/Octo/Repo Octo:feature']);
    expect(found).toEqual(['github:octo/repo#12', 'github:octo/repo#13']);
  });

  it("a fork's branch is also looked for upstream, in the work item's repository; each pull request once", async () => {
    const { github, asked } = fakeGitHub({
      'github.com/me/repo me:feature': [3],
      'github.com/octo/repo forker:feature': [12],
    });
    const found = await discoverPullRequests(
      ITEM,
      { branch: 'feature', repository: 'me/repo', headOwner: 'forker' },
      github,
    );
    expect(asked).toEqual(['github.com/me/repo me:feature', 'github.com/octo/repo forker:feature']);
    expect(found).toEqual(['github:me/repo#3', 'github:octo/repo#12']);

    // the same pull request found by both questions is answered once
    const twice = fakeGitHub({
      'github.com/octo/repo octo:feature': [12],
      'github.com/octo/repo forker:feature': [12, 14],
    });
    expect(
      await discoverPullRequests(
        ITEM,
        { branch: 'feature', repository: 'octo/repo', headOwner: 'forker' },
        twice.github,
      ),
    ).toEqual(['github:octo/repo#12', 'github:octo/repo#14']);
  });

  it('a --repository that is not [HOST/]OWNER/REPO is bad input, and GitHub is not asked', async () => {
    const { github, asked } = fakeGitHub();
    const error = await refusal(
      discoverPullRequests(ITEM, { branch: 'feature', repository: 'just-a-name' }, github),
    );
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toBe("--repository 'just-a-name' is not [HOST/]OWNER/REPO");
    expect(asked).toEqual([]);
  });

  it("without --branch it takes the checkout's branch, and the repository from origin on github.com", async () => {
    checkout('topic/x', 'git@github.com:Me/Fork.git');
    const { github, asked } = fakeGitHub({ 'github.com/Me/Fork Me:topic/x': [4] });
    expect(await discoverPullRequests(ITEM, {}, github)).toEqual(['github:me/fork#4']);
    expect(asked).toEqual(['github.com/Me/Fork Me:topic/x']);
  });

  it("an origin on a host the work item is not on is not trusted: the work item's repository is asked instead", async () => {
    checkout('feature', 'https://gitlab.example.com/me/repo.git');
    const { github, asked } = fakeGitHub();
    expect(await discoverPullRequests(ITEM, {}, github)).toEqual([]);
    expect(asked).toEqual(['github.com/octo/repo octo:feature']);
  });

  it('an enterprise work item trusts an origin on its own host', async () => {
    checkout('feature', 'https://ghe.example.com/team/app.git');
    const { github, asked } = fakeGitHub({ 'ghe.example.com/team/app team:feature': [9] });
    expect(await discoverPullRequests('github:ghe.example.com/team/app#1', {}, github)).toEqual([
      'github:ghe.example.com/team/app#9',
    ]);
    expect(asked).toEqual(['ghe.example.com/team/app team:feature']);
  });

  it('a detached HEAD without --branch is bad input, and GitHub is not asked', async () => {
    checkout(null, 'git@github.com:octo/repo.git');
    const { github, asked } = fakeGitHub();
    const error = await refusal(discoverPullRequests(ITEM, {}, github));
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toMatch(/HEAD is detached .*: pass --branch$/);
    expect(asked).toEqual([]);
  });
});
