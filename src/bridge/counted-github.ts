import type { Conditional, GitHubClient } from '../github/api';

/** What one poll cycle asked GitHub, and how much of it came back 304 (free against the rate limit). */
export interface RequestTally {
  total: number;
  notModified: number;
}

/** `github`, counting into `tally` every request a poll cycle makes: its result reports them. */
export function countedGitHub(github: GitHubClient, tally: RequestTally): GitHubClient {
  const wrap =
    <A extends unknown[], T>(fn: (...args: A) => Promise<Conditional<T>>) =>
    async (...args: A): Promise<Conditional<T>> => {
      tally.total++;
      const result = await fn(...args);
      if (!result.modified) tally.notModified++;
      return result;
    };
  const plain =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      tally.total++;
      return fn(...args);
    };
  return {
    ...github,
    listOpenLabelledItems: wrap(github.listOpenLabelledItems.bind(github)),
    listIssueComments: wrap(github.listIssueComments.bind(github)),
    listReviews: wrap(github.listReviews.bind(github)),
    listReviewComments: wrap(github.listReviewComments.bind(github)),
    listCheckRuns: wrap(github.listCheckRuns.bind(github)),
    getItemState: plain(github.getItemState.bind(github)),
    getPullRequest: plain(github.getPullRequest.bind(github)),
    closingIssues: plain(github.closingIssues.bind(github)),
    getPermission: plain(github.getPermission.bind(github)),
  };
}
