import type { PullRequestDetail, RepoRef } from '../github/api';

/** `github:[HOST/]owner/repo#n`, lower-case, default host omitted: the same canonical form as the registry's. */
export function itemRef(repo: RepoRef, number: number): string {
  const host = repo.host.toLowerCase() === 'github.com' ? '' : `${repo.host.toLowerCase()}/`;
  return `github:${host}${repo.owner.toLowerCase()}/${repo.repo.toLowerCase()}#${number}`;
}

export type RouteReason =
  | 'issue'
  | 'recorded-link'
  | 'closing-issues-references'
  | 'head-branch'
  | 'closing-keyword'
  | 'own-work-item';

export interface Route {
  /** The work item the event belongs to (canonical ref). */
  workItem: string;
  /** The item the event happened on (canonical ref): the work item itself, or a PR delivering it. */
  subject: string;
  /** True when the event happened on the work item itself (its close ends the session). */
  own: boolean;
  reason: RouteReason;
}

/** What routing may ask, each only when the cheaper steps before it found nothing. */
export interface RoutingLookups {
  /** The work item that recorded this PR (link-pr / pr create), from this machine's registry. */
  recordedLink(pullRef: string): Promise<string | null> | string | null;
  closingIssues(repo: RepoRef, pullNumber: number): Promise<{ repo: RepoRef; number: number }[]>;
  /** Fetched only when the payload lacks the head branch or body. */
  pullRequest(repo: RepoRef, pullNumber: number): Promise<PullRequestDetail | null>;
}

/** `issue-42`, `issue-42-fix-login`, `feature/issue-42`… → 42. */
export function issueFromBranch(branch: string): number | null {
  const match = /(?:^|\/)issue-([1-9][0-9]{0,9})(?:[-_/.]|$)/i.exec(branch);
  return match?.[1] ? Number(match[1]) : null;
}

/**
 * GitHub's closing keywords in a PR body: close/closes/closed, fix/fixes/fixed, resolve/resolves/resolved,
 * followed by `#N`, `OWNER/REPO#N` or an issue URL. Returns the first one in `repo`'s own repository, or in
 * another repository when named.
 */
export function closingKeywordTarget(body: string, repo: RepoRef): { repo: RepoRef; number: number } | null {
  const pattern =
    /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:(?:https?:\/\/[^/\s]+\/)?([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)(?:#|\/issues\/)|#)([1-9][0-9]{0,9})\b/gi;
  for (const match of body.matchAll(pattern)) {
    const owner = match[1];
    const name = match[2];
    const number = Number(match[3]);
    if (owner && name)
      return { repo: { host: repo.host, owner: owner.toLowerCase(), repo: name.toLowerCase() }, number };
    return { repo, number };
  }
  return null;
}

/**
 * Which work item an event on `number` belongs to. An issue is its own work item. A pull request resolves
 * through recorded links first, then closingIssuesReferences, an `issue-<n>` head branch, a closing keyword in
 * its body; a pull request with none of those is a work item of its own.
 */
export async function routeItem(
  repo: RepoRef,
  item: { number: number; isPullRequest: boolean; headRef: string | null; body: string | null },
  lookups: RoutingLookups,
): Promise<Route> {
  const subject = itemRef(repo, item.number);
  if (!item.isPullRequest) return { workItem: subject, subject, own: true, reason: 'issue' };
  const linked = await lookups.recordedLink(subject);
  if (linked && linked !== subject) return { workItem: linked, subject, own: false, reason: 'recorded-link' };
  const closing = await lookups.closingIssues(repo, item.number);
  const first = closing[0];
  if (first)
    return {
      workItem: itemRef(first.repo, first.number),
      subject,
      own: false,
      reason: 'closing-issues-references',
    };
  let headRef = item.headRef;
  let body = item.body;
  if (headRef === null || body === null) {
    const pr = await lookups.pullRequest(repo, item.number);
    headRef = headRef ?? pr?.headRef ?? '';
    body = body ?? pr?.body ?? '';
  }
  const fromBranch = issueFromBranch(headRef);
  if (fromBranch !== null && fromBranch !== item.number)
    return { workItem: itemRef(repo, fromBranch), subject, own: false, reason: 'head-branch' };
  const keyword = closingKeywordTarget(body, repo);
  if (keyword && itemRef(keyword.repo, keyword.number) !== subject)
    return {
      workItem: itemRef(keyword.repo, keyword.number),
      subject,
      own: false,
      reason: 'closing-keyword',
    };
  return { workItem: subject, subject, own: true, reason: 'own-work-item' };
}
