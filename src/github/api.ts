/**
 * Every GitHub call the-loop makes goes through this interface: the Octokit implementation talks to GitHub
 * (or to the local fake in tests), and work-item code never imports Octokit itself.
 */
export interface RepoRef {
  /** API host, e.g. github.com or a GitHub Enterprise host. */
  host: string;
  owner: string;
  repo: string;
}

export interface PullRequestSummary {
  number: number;
  url: string;
  headRef: string;
  headOwner: string | null;
  state: 'open' | 'closed';
  merged: boolean;
  labels: string[];
}

export interface PullRequestDetail extends PullRequestSummary {
  title: string;
  body: string;
  headSha: string;
  /** The repository the head branch lives in, `owner/repo`; null when the fork was deleted. */
  headRepo: string | null;
}

/** One open issue or pull request as the issues listing shows it. */
export interface ItemSummary {
  number: number;
  isPullRequest: boolean;
  state: 'open' | 'closed';
  title: string;
  labels: string[];
  updatedAt: string;
}

/** What GitHub says about an item right now: used to confirm that an item really ended. */
export interface ItemState {
  number: number;
  isPullRequest: boolean;
  state: 'open' | 'closed';
  /** Pull requests only; false for issues. */
  merged: boolean;
  /** completed, not_planned, reopened, or null. */
  stateReason: string | null;
  labels: string[];
  title: string;
  body: string;
  author: Actor;
  url: string;
  createdAt: string;
}

export interface Actor {
  login: string;
  /** 'User', 'Bot', 'Organization'… */
  type: string;
}

export interface IssueComment {
  id: number;
  body: string;
  user: Actor;
  createdAt: string;
  updatedAt: string;
  url: string;
}

export interface Review {
  id: number;
  body: string;
  /** APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING. */
  state: string;
  user: Actor;
  submittedAt: string | null;
  url: string;
}

export interface ReviewComment {
  id: number;
  body: string;
  user: Actor;
  path: string;
  line: number | null;
  createdAt: string;
  updatedAt: string;
  url: string;
}

export interface CheckRun {
  id: number;
  name: string;
  /** queued, in_progress, completed. */
  status: string;
  conclusion: string | null;
  headSha: string;
  url: string;
}

/** Repository permission, strongest first. */
export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/**
 * A conditional GET: with the ETag of the previous answer, an unchanged resource answers 304, which costs no
 * rate limit. Only the first page is conditional; when it changed, the remaining pages are fetched.
 */
export type Conditional<T> =
  { modified: false; etag: string } | { modified: true; etag: string | null; data: T };

export interface GitHubClient {
  postComment(repo: RepoRef, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
  addLabels(repo: RepoRef, issueNumber: number, labels: string[]): Promise<void>;
  /** Removes one label; a label the item does not carry is not an error. */
  removeLabel(repo: RepoRef, issueNumber: number, label: string): Promise<void>;
  listOpenPullRequestsByHead(repo: RepoRef, head: string): Promise<PullRequestSummary[]>;
  createPullRequest(
    repo: RepoRef,
    input: { title: string; head: string; base: string; body?: string; draft?: boolean },
  ): Promise<PullRequestSummary>;

  /** Open issues and pull requests that carry every one of `labels`, most recently updated first. */
  listOpenLabelledItems(repo: RepoRef, labels: string[], etag?: string): Promise<Conditional<ItemSummary[]>>;
  /** Comments on an issue or pull request (not review comments), updated at or after `since`. */
  listIssueComments(
    repo: RepoRef,
    number: number,
    since: string | null,
    etag?: string,
  ): Promise<Conditional<IssueComment[]>>;
  listReviews(repo: RepoRef, pullNumber: number, etag?: string): Promise<Conditional<Review[]>>;
  /** Inline review comments on a pull request, updated at or after `since`. */
  listReviewComments(
    repo: RepoRef,
    pullNumber: number,
    since: string | null,
    etag?: string,
  ): Promise<Conditional<ReviewComment[]>>;
  listCheckRuns(repo: RepoRef, sha: string, etag?: string): Promise<Conditional<CheckRun[]>>;
  /** null when the item does not exist (deleted, transferred away, or never existed). */
  getItemState(repo: RepoRef, number: number): Promise<ItemState | null>;
  getPullRequest(repo: RepoRef, pullNumber: number): Promise<PullRequestDetail | null>;
  /** The issues GitHub will close when this pull request merges (GraphQL closingIssuesReferences). */
  closingIssues(repo: RepoRef, pullNumber: number): Promise<{ repo: RepoRef; number: number }[]>;
  /** The user's permission on the repository; 'none' for a user who is no collaborator. */
  getPermission(repo: RepoRef, login: string): Promise<Permission>;
}

/** `[HOST/]OWNER/REPO` → RepoRef; null when malformed. */
export function parseRepository(text: string, defaultHost = 'github.com'): RepoRef | null {
  const parts = text.trim().split('/');
  const name = /^[A-Za-z0-9_.-]+$/;
  if (parts.length === 2 || parts.length === 3) {
    const [host, owner, repo] = parts.length === 3 ? parts : [defaultHost, ...parts];
    if (host && owner && repo && /^[A-Za-z0-9.-]+(:\d+)?$/.test(host) && name.test(owner) && name.test(repo))
      return { host: host.toLowerCase(), owner, repo: repo.replace(/\.git$/, '') };
  }
  return null;
}
