import { readFileSync } from 'node:fs';
import { App, Octokit, RequestError } from 'octokit';
import type { TheLoopConfig } from '../config/schema';
import type {
  Actor,
  CheckRun,
  Conditional,
  GitHubClient,
  IssueComment,
  ItemState,
  ItemSummary,
  Permission,
  PullRequestDetail,
  PullRequestSummary,
  Review,
  ReviewComment,
} from './api';

/** How the-loop authenticates to GitHub. The secret values never leave this object: no logging, no argv. */
export type GitHubAuth =
  | { kind: 'token'; token: string; source: 'GH_TOKEN' | 'GITHUB_TOKEN' }
  | { kind: 'app'; appId: string; privateKey: string; installationId: number }
  | { kind: 'none' };

/** GH_TOKEN, then GITHUB_TOKEN, then a GitHub App from github.{appId, privateKeyFile, installationId}. */
export function resolveGitHubAuth(config: TheLoopConfig, env: NodeJS.ProcessEnv = process.env): GitHubAuth {
  if (env.GH_TOKEN) return { kind: 'token', token: env.GH_TOKEN, source: 'GH_TOKEN' };
  if (env.GITHUB_TOKEN) return { kind: 'token', token: env.GITHUB_TOKEN, source: 'GITHUB_TOKEN' };
  const { appId, privateKeyFile, installationId } = config.github;
  if (appId && privateKeyFile && installationId !== undefined) {
    return { kind: 'app', appId, privateKey: readFileSync(privateKeyFile, 'utf8'), installationId };
  }
  return { kind: 'none' };
}

export function describeAuth(auth: GitHubAuth): string {
  switch (auth.kind) {
    case 'token':
      return `token from ${auth.source}`;
    case 'app':
      return `GitHub App ${auth.appId}, installation ${auth.installationId}`;
    case 'none':
      return 'unauthenticated';
  }
}

export interface OctokitClientOptions {
  apiUrl: string;
  auth: GitHubAuth;
  /** Retry and throttling are on by default; tests against the local fake may turn throttling off. */
  throttle?: boolean;
  retries?: number;
  /** Where Octokit's own warnings go (never secrets: Octokit does not log credentials). */
  log?: (line: string) => void;
}

type OctokitInstance = InstanceType<typeof Octokit>;
type Headers = Record<string, string | number | undefined>;

interface RawUser {
  login: string;
  type?: string;
}

function actor(user: RawUser | null | undefined): Actor {
  return { login: user?.login ?? 'ghost', type: user?.type ?? 'User' };
}

function labelNames(labels: readonly (string | { name?: string })[] | undefined): string[] {
  return (labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((n) => n !== '');
}

/** The next page number from a Link header, or null on the last page. */
export function nextPage(link: string | undefined): number | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (match?.[1]) {
      const page = new URL(match[1]).searchParams.get('page');
      return page === null ? null : Number(page);
    }
  }
  return null;
}

const PER_PAGE = 100;
const MAX_PAGES = 50;

export function createOctokitGitHubClient(options: OctokitClientOptions): GitHubClient {
  const log = options.log ?? (() => undefined);
  const quiet = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => log(`github: ${message}`),
    error: (message: string) => log(`github: ${message}`),
  };
  const base = {
    baseUrl: options.apiUrl.replace(/\/+$/, ''),
    log: quiet,
    retry: { retries: options.retries ?? 3 },
    throttle: {
      enabled: options.throttle ?? true,
      onRateLimit: (
        retryAfter: number,
        req: { method: string; url: string; request: { retryCount: number } },
      ) => {
        log(`github: rate limit reached for ${req.method} ${req.url}; retrying after ${retryAfter} s`);
        return req.request.retryCount < 2;
      },
      onSecondaryRateLimit: (
        retryAfter: number,
        req: { method: string; url: string; request: { retryCount: number } },
      ) => {
        log(`github: secondary rate limit for ${req.method} ${req.url}; retrying after ${retryAfter} s`);
        return req.request.retryCount < 2;
      },
    },
  };

  let instance: Promise<OctokitInstance> | null = null;
  function octokit(): Promise<OctokitInstance> {
    if (instance) return instance;
    const { auth } = options;
    if (auth.kind === 'app') {
      const app = new App({
        appId: auth.appId,
        privateKey: auth.privateKey,
        Octokit: Octokit.defaults(base),
      });
      instance = app.getInstallationOctokit(auth.installationId) as Promise<OctokitInstance>;
      instance.catch(() => {
        instance = null;
      });
    } else {
      instance = Promise.resolve(
        new Octokit({ ...base, ...(auth.kind === 'token' ? { auth: auth.token } : {}) }),
      );
    }
    return instance;
  }

  /** Page 1 conditionally, then every following page; a 304 answers `modified: false`. */
  async function conditional<R, T>(
    etag: string | undefined,
    fetchPage: (page: number, headers: Headers) => Promise<{ data: R; headers: Headers }>,
    map: (data: R) => T[],
  ): Promise<Conditional<T[]>> {
    let first;
    try {
      first = await fetchPage(1, etag ? { 'if-none-match': etag } : {});
    } catch (error) {
      if (error instanceof RequestError && error.status === 304) return { modified: false, etag: etag ?? '' };
      throw error;
    }
    const items = map(first.data);
    let next = nextPage(first.headers.link as string | undefined);
    for (let n = 0; next !== null && n < MAX_PAGES; n++) {
      const page = await fetchPage(next, {});
      items.push(...map(page.data));
      next = nextPage(page.headers.link as string | undefined);
    }
    const newEtag = first.headers.etag;
    return { modified: true, etag: typeof newEtag === 'string' ? newEtag : null, data: items };
  }

  function notFound(error: unknown): boolean {
    return error instanceof RequestError && (error.status === 404 || error.status === 410);
  }

  const client: GitHubClient = {
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

    async addLabels(repo, issueNumber, labels) {
      await (
        await octokit()
      ).request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        owner: repo.owner,
        repo: repo.repo,
        issue_number: issueNumber,
        labels,
      });
    },

    async removeLabel(repo, issueNumber, label) {
      try {
        await (
          await octokit()
        ).request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
          owner: repo.owner,
          repo: repo.repo,
          issue_number: issueNumber,
          name: label,
        });
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
      }
    },

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
  return client;
}

/** The client the CLI, the receiver and the worker use: config.github.apiUrl with the resolved credentials. */
export function createGitHubClientFromConfig(
  config: TheLoopConfig,
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; throttle?: boolean } = {},
): GitHubClient {
  return createOctokitGitHubClient({
    apiUrl: config.github.apiUrl,
    auth: resolveGitHubAuth(config, options.env),
    ...(options.log ? { log: options.log } : {}),
    ...(options.throttle !== undefined ? { throttle: options.throttle } : {}),
  });
}
