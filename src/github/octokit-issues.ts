import type { GitHubClient, IssueComment, ItemState, ItemSummary, Permission } from './api';
import type { Connect } from './octokit-connect';
import { actor, conditional, labelNames, notFound, PER_PAGE } from './octokit-shared';

/** Issues (and the items listing, which GitHub serves from the issues endpoint), their comments, and a user's permission on the repository. */
export function issueRequests(
  octokit: Connect,
): Pick<
  GitHubClient,
  'postComment' | 'listOpenLabelledItems' | 'listIssueComments' | 'getItemState' | 'getPermission'
> {
  return {
    async postComment(repo, issueNumber, body) {
      const { data } = await (
        await octokit()
      ).request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner: repo.owner,
        repo: repo.repo,
        issue_number: issueNumber,
        body,
      });
      return { id: Number(data.id), url: data.html_url };
    },
    async listOpenLabelledItems(repo, labels, etag) {
      const gh = await octokit();
      return conditional(
        etag,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/issues', {
            owner: repo.owner,
            repo: repo.repo,
            state: 'open',
            labels: labels.join(','),
            sort: 'updated',
            direction: 'desc',
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.map((issue): ItemSummary => ({
            number: issue.number,
            isPullRequest: issue.pull_request !== undefined,
            state: issue.state === 'closed' ? 'closed' : 'open',
            title: issue.title,
            labels: labelNames(issue.labels),
            updatedAt: issue.updated_at,
          })),
      );
    },
    async listIssueComments(repo, number, since, etag) {
      const gh = await octokit();
      return conditional(
        etag,
        (page, headers) =>
          gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            owner: repo.owner,
            repo: repo.repo,
            issue_number: number,
            ...(since ? { since } : {}),
            per_page: PER_PAGE,
            page,
            headers,
          }),
        (data) =>
          data.map((c): IssueComment => ({
            id: Number(c.id),
            body: c.body ?? '',
            user: actor(c.user),
            createdAt: c.created_at,
            updatedAt: c.updated_at,
            url: c.html_url,
          })),
      );
    },
    async getItemState(repo, number) {
      const gh = await octokit();
      let issue;
      try {
        ({ data: issue } = await gh.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
          owner: repo.owner,
          repo: repo.repo,
          issue_number: number,
        }));
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
      const isPullRequest = issue.pull_request !== undefined;
      const merged = isPullRequest ? Boolean(issue.pull_request?.merged_at) : false;
      const state: ItemState = {
        number: issue.number,
        isPullRequest,
        state: issue.state === 'closed' ? 'closed' : 'open',
        merged,
        stateReason: issue.state_reason ?? null,
        labels: labelNames(issue.labels),
        title: issue.title,
        body: issue.body ?? '',
        author: actor(issue.user),
        url: issue.html_url,
        createdAt: issue.created_at,
      };
      return state;
    },
    async getPermission(repo, login) {
      const gh = await octokit();
      try {
        const { data } = await gh.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
          owner: repo.owner,
          repo: repo.repo,
          username: login,
        });
        const role = (data.role_name ?? '').toLowerCase();
        const known: Permission[] = ['admin', 'maintain', 'write', 'triage', 'read', 'none'];
        if ((known as string[]).includes(role)) return role as Permission;
        return (known as string[]).includes(data.permission) ? (data.permission as Permission) : 'none';
      } catch (error) {
        if (notFound(error)) return 'none';
        throw error;
      }
    },
  };
}
