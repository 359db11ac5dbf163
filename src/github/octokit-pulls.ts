import type {
  CheckRun,
  GitHubClient,
  PullRequestDetail,
  PullRequestSummary,
  Review,
  ReviewComment,
} from './api';
import type { Connect } from './octokit-connect';
import { actor, conditional, labelNames, notFound, PER_PAGE } from './octokit-shared';

/** Pull requests: finding, opening and reading them, the issues they close, and their reviews, review comments and check runs. */
export function pullRequestRequests(
  octokit: Connect,
): Pick<
  GitHubClient,
  | 'listOpenPullRequestsByHead'
  | 'createPullRequest'
  | 'getPullRequest'
  | 'closingIssues'
  | 'listReviews'
  | 'listReviewComments'
  | 'listCheckRuns'
> {
  return {
    async listOpenPullRequestsByHead(repo, head) {
      const gh = await octokit();
      const result = await conditional(
        undefined,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/pulls', {
            owner: repo.owner,
            repo: repo.repo,
            state: 'open',
            head,
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.map((pr): PullRequestSummary => ({
            number: pr.number,
            url: pr.html_url,
            headRef: pr.head.ref,
            headOwner: pr.head.repo?.owner.login ?? pr.head.user?.login ?? null,
            state: pr.state === 'closed' ? 'closed' : 'open',
            merged: pr.merged_at !== null,
            labels: labelNames(pr.labels),
          })),
      );
      return result.modified ? result.data : [];
    },
    async createPullRequest(repo, input) {
      const { data: pr } = await (
        await octokit()
      ).request('POST /repos/{owner}/{repo}/pulls', {
        owner: repo.owner,
        repo: repo.repo,
        title: input.title,
        head: input.head,
        base: input.base,
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.draft !== undefined ? { draft: input.draft } : {}),
      });
      return {
        number: pr.number,
        url: pr.html_url,
        headRef: pr.head.ref,
        headOwner: pr.head.repo?.owner.login ?? null,
        state: pr.state === 'closed' ? 'closed' : 'open',
        merged: pr.merged,
        labels: labelNames(pr.labels),
      };
    },
    async getPullRequest(repo, pullNumber) {
      const gh = await octokit();
      try {
        const { data: pr } = await gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          owner: repo.owner,
          repo: repo.repo,
          pull_number: pullNumber,
        });
        const detail: PullRequestDetail = {
          number: pr.number,
          url: pr.html_url,
          title: pr.title,
          body: pr.body ?? '',
          headRef: pr.head.ref,
          headSha: pr.head.sha,
          headOwner: pr.head.repo?.owner.login ?? null,
          headRepo: pr.head.repo?.full_name ?? null,
          state: pr.state === 'closed' ? 'closed' : 'open',
          merged: pr.merged,
          labels: labelNames(pr.labels),
        };
        return detail;
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async closingIssues(repo, pullNumber) {
      const gh = await octokit();
      const result = await gh.graphql<{
        repository: {
          pullRequest: {
            closingIssuesReferences: {
              nodes: { number: number; repository: { name: string; owner: { login: string } } }[];
            };
          } | null;
        } | null;
      }>(
        `query($owner: String!, $repo: String!, $number: Int!) {
        repository(owner: $owner, name: $repo) {
          pullRequest(number: $number) {
            closingIssuesReferences(first: 25) {
              nodes { number repository { name owner { login } } }
            }
          }
        }
      }`,
        { owner: repo.owner, repo: repo.repo, number: pullNumber },
      );
      const nodes = result.repository?.pullRequest?.closingIssuesReferences.nodes ?? [];
      return nodes.map((n) => ({
        repo: { host: repo.host, owner: n.repository.owner.login, repo: n.repository.name },
        number: n.number,
      }));
    },
    async listReviews(repo, pullNumber, etag) {
      const gh = await octokit();
      return conditional(
        etag,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
            owner: repo.owner,
            repo: repo.repo,
            pull_number: pullNumber,
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.map((r): Review => ({
            id: Number(r.id),
            body: r.body,
            state: r.state,
            user: actor(r.user),
            submittedAt: r.submitted_at ?? null,
            url: r.html_url,
          })),
      );
    },
    async listReviewComments(repo, pullNumber, since, etag) {
      const gh = await octokit();
      return conditional(
        etag,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
            owner: repo.owner,
            repo: repo.repo,
            pull_number: pullNumber,
            ...(since ? { since } : {}),
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.map((c): ReviewComment => ({
            id: Number(c.id),
            body: c.body,
            user: actor(c.user),
            path: c.path,
            line: c.line ?? null,
            createdAt: c.created_at,
            updatedAt: c.updated_at,
            url: c.html_url,
          })),
      );
    },
    async listCheckRuns(repo, sha, etag) {
      const gh = await octokit();
      return conditional(
        etag,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
            owner: repo.owner,
            repo: repo.repo,
            ref: sha,
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.check_runs.map((run): CheckRun => ({
            id: Number(run.id),
            name: run.name,
            status: run.status,
            conclusion: run.conclusion,
            headSha: run.head_sha,
            url: run.html_url ?? run.url,
          })),
      );
    },
  };
}
