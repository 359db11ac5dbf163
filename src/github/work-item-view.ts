import type {
  CheckRun,
  Conditional,
  GitHubClient,
  IssueComment,
  ItemState,
  RepoRef,
  Review,
  ReviewComment,
} from './api';

/** A pull request with what a reviewer and CI said about it. */
export interface PullRequestView {
  ref: string;
  number: number;
  title: string;
  body: string;
  url: string;
  state: 'open' | 'closed';
  merged: boolean;
  headRef: string;
  headSha: string;
  labels: string[];
  comments: IssueComment[];
  reviews: Review[];
  reviewComments: ReviewComment[];
  checkRuns: CheckRun[];
}

/** Everything an agent needs to start on a work item, read through the-loop's GitHub client. */
export interface WorkItemView {
  ref: string;
  item: ItemState;
  /** The whole comment thread, oldest first. */
  comments: IssueComment[];
  /** When the work item is itself a pull request: its reviews and checks. */
  pullRequest: PullRequestView | null;
  /** The pull requests recorded as delivering the work item (link-pr, pr create). */
  linkedPullRequests: PullRequestView[];
}

export interface PullRequestAddress {
  ref: string;
  repo: RepoRef;
  number: number;
}

const all = <T>(result: Conditional<T[]>): T[] => (result.modified ? result.data : []);

async function readPullRequest(
  github: GitHubClient,
  at: PullRequestAddress,
): Promise<PullRequestView | null> {
  const pr = await github.getPullRequest(at.repo, at.number);
  if (!pr) return null;
  const [comments, reviews, reviewComments, checkRuns] = await Promise.all([
    github.listIssueComments(at.repo, at.number, null),
    github.listReviews(at.repo, at.number),
    github.listReviewComments(at.repo, at.number, null),
    github.listCheckRuns(at.repo, pr.headSha),
  ]);
  return {
    ref: at.ref,
    number: pr.number,
    title: pr.title,
    body: pr.body,
    url: pr.url,
    state: pr.state,
    merged: pr.merged,
    headRef: pr.headRef,
    headSha: pr.headSha,
    labels: pr.labels,
    comments: all(comments),
    reviews: all(reviews),
    reviewComments: all(reviewComments),
    checkRuns: all(checkRuns),
  };
}

/** null when GitHub does not know the item. A linked pull request that no longer exists is left out. */
export async function readWorkItemView(
  github: GitHubClient,
  item: PullRequestAddress,
  linked: readonly PullRequestAddress[],
): Promise<WorkItemView | null> {
  const state = await github.getItemState(item.repo, item.number);
  if (!state) return null;
  const [comments, pullRequest, ...linkedViews] = await Promise.all([
    github.listIssueComments(item.repo, item.number, null),
    state.isPullRequest ? readPullRequest(github, item) : Promise.resolve(null),
    ...linked.map((at) => readPullRequest(github, at)),
  ]);
  return {
    ref: item.ref,
    item: state,
    comments: all(comments),
    pullRequest: pullRequest ? { ...pullRequest, comments: [] } : null,
    linkedPullRequests: linkedViews.filter((v): v is PullRequestView => v !== null),
  };
}
