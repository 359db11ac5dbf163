import type { GitHubClient } from '../github/api';
import { parseRepository } from '../github/api';
import { currentBranch, originUrl } from '../work-item/git';
import { formatRef, parseWorkItemRef } from '../work-item/ref';
import { usageError } from '../errors';

export interface DiscoverOptions {
  /** The head branch (default: the checked-out branch). */
  branch?: string;
  /** The fork's owner when the head branch is a fork's. */
  headOwner?: string;
  /** [HOST/]OWNER/REPO to look in (default: origin when it is on a trusted host, else the work item's). */
  repository?: string;
}

/** The open pull requests whose head is this checkout's branch (or the given one), as refs. */
export async function discoverPullRequests(
  workItem: string,
  options: DiscoverOptions,
  github: GitHubClient,
): Promise<string[]> {
  const ref = parseWorkItemRef(workItem);
  let branch = options.branch;
  if (!branch) {
    const head = await currentBranch();
    if (head === null)
      throw usageError('--discover: HEAD is detached (or this is no git checkout): pass --branch');
    branch = head;
  }
  let repo = options.repository ? parseRepository(options.repository) : null;
  if (options.repository && !repo)
    throw usageError(`--repository '${options.repository}' is not [HOST/]OWNER/REPO`);
  if (!repo) {
    const url = (await originUrl()) ?? '';
    const match = /^(?:https?:\/\/|git@|ssh:\/\/git@)([^/:]+)[/:]([^/]+)\/([^/]+?)(?:\.git)?$/.exec(url);
    const trusted = new Set([ref.host, 'github.com']);
    repo =
      match && trusted.has((match[1] ?? '').toLowerCase())
        ? { host: (match[1] ?? '').toLowerCase(), owner: match[2] ?? '', repo: match[3] ?? '' }
        : { host: ref.host, owner: ref.owner, repo: ref.repo };
  }
  const queries = [{ repo, head: `${repo.owner}:${branch}` }];
  // A fork's branch: its pull request lives upstream, so the work item's repository is asked for it.
  if (options.headOwner) {
    queries.push({
      repo: { host: ref.host, owner: ref.owner, repo: ref.repo },
      head: `${options.headOwner}:${branch}`,
    });
  }
  const found = new Set<string>();
  for (const query of queries) {
    for (const pr of await github.listOpenPullRequestsByHead(query.repo, query.head)) {
      found.add(
        formatRef({
          provider: 'github',
          host: query.repo.host,
          owner: query.repo.owner.toLowerCase(),
          repo: query.repo.repo.toLowerCase(),
          number: pr.number,
        }),
      );
    }
  }
  found.delete(workItem);
  return [...found];
}
