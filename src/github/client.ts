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

export interface GitHubClient {
  postComment(repo: RepoRef, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
  addLabels(repo: RepoRef, issueNumber: number, labels: string[]): Promise<void>;
  listOpenPullRequestsByHead(repo: RepoRef, head: string): Promise<PullRequestSummary[]>;
  createPullRequest(
    repo: RepoRef,
    input: { title: string; head: string; base: string; body?: string; draft?: boolean },
  ): Promise<PullRequestSummary>;
}
