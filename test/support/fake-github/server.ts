import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { findRoute, graphqlAnswer, type Exchange, type Paginate } from './routes';
import type {
  FakeCheckRun,
  FakeComment,
  FakeItem,
  FakeRepo,
  FakeReview,
  FakeReviewComment,
  FakeUser,
  RecordedRequest,
} from './model';

export type {
  FakeCheckRun,
  FakeComment,
  FakeItem,
  FakeRepo,
  FakeReview,
  FakeReviewComment,
  FakeUser,
  RecordedRequest,
} from './model';

/**
 * A local HTTP server that speaks the GitHub REST endpoints the bridge uses, over in-memory state the test
 * controls: ETag + 304 (counted), Link pagination, rate-limit headers, permissions, labels, comments, PRs,
 * and the one GraphQL query (closingIssuesReferences).
 *
 * This file holds the state and the HTTP plumbing; the endpoints are in routes/, one file per resource.
 */
export class FakeGitHub {
  private server: Server | null = null;
  private nextId = 1000;
  private clock = Date.parse('2024-01-01T00:00:00Z');
  readonly repos = new Map<string, FakeRepo>();
  readonly requests: RecordedRequest[] = [];
  /** When set, requests without `Authorization: token <this>` (or Bearer) get 401. */
  token: string | null = null;
  rateLimit = { limit: 5000, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 };
  /** Fail the next N requests with this status (5xx exercises Octokit's retry). */
  failures: { status: number; count: number } | null = null;
  /** Requests whose `METHOD /path` matches wait this long before they are answered (a slow GitHub). */
  slow: { match: RegExp; ms: number } | null = null;
  perPageCap = 100;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.send(res, req, 500, { message: String(error) }, false);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  now(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  /** Repository names are case-insensitive, as on GitHub. */
  repo(fullName: string): FakeRepo {
    let repo = this.repos.get(fullName.toLowerCase());
    if (!repo) {
      const [owner = '', name = ''] = fullName.split('/');
      repo = {
        owner,
        name,
        items: new Map(),
        comments: [],
        reviews: [],
        reviewComments: [],
        checkRuns: [],
        permissions: new Map(),
        labels: new Set(),
        strictLabels: false,
        refuseLabels: null,
      };
      this.repos.set(fullName.toLowerCase(), repo);
    }
    return repo;
  }

  addIssue(fullName: string, input: Partial<FakeItem> & { number: number }): FakeItem {
    const at = this.now();
    const item: FakeItem = {
      title: `Issue ${input.number}`,
      body: '',
      state: 'open',
      stateReason: null,
      labels: [],
      user: { login: 'octocat' },
      createdAt: at,
      updatedAt: at,
      ...input,
    };
    this.repo(fullName).items.set(item.number, item);
    return item;
  }

  addPull(
    fullName: string,
    input: Partial<FakeItem> & { number: number; head: string; sha?: string; closingIssues?: number[] },
  ): FakeItem {
    const { head, sha, closingIssues, ...rest } = input;
    const [owner] = fullName.split('/');
    return this.addIssue(fullName, {
      title: `PR ${input.number}`,
      ...rest,
      pull: {
        head: {
          ref: head,
          sha: sha ?? createHash('sha1').update(`${fullName}#${input.number}`).digest('hex'),
          owner: owner ?? '',
        },
        base: 'main',
        merged: false,
        draft: false,
        closingIssues: closingIssues ?? [],
      },
    });
  }

  addComment(
    fullName: string,
    issue: number,
    body: string,
    user: FakeUser = { login: 'octocat' },
  ): FakeComment {
    const at = this.now();
    const comment = { id: this.nextId++, issue, body, user, createdAt: at, updatedAt: at };
    this.repo(fullName).comments.push(comment);
    this.touch(fullName, issue, at);
    return comment;
  }

  addReview(
    fullName: string,
    pull: number,
    body: string,
    state = 'COMMENTED',
    user: FakeUser = { login: 'reviewer' },
  ): FakeReview {
    const review = { id: this.nextId++, pull, body, state, user, submittedAt: this.now() };
    this.repo(fullName).reviews.push(review);
    return review;
  }

  addReviewComment(
    fullName: string,
    pull: number,
    body: string,
    path = 'src/index.ts',
    user: FakeUser = { login: 'reviewer' },
  ): FakeReviewComment {
    const at = this.now();
    const comment = {
      id: this.nextId++,
      issue: pull,
      body,
      user,
      createdAt: at,
      updatedAt: at,
      path,
      line: 1,
    };
    this.repo(fullName).reviewComments.push(comment);
    return comment;
  }

  addCheckRun(fullName: string, sha: string, name: string, conclusion: string | null): FakeCheckRun {
    const run = {
      id: this.nextId++,
      sha,
      name,
      status: conclusion === null ? 'in_progress' : 'completed',
      conclusion,
    };
    this.repo(fullName).checkRuns.push(run);
    return run;
  }

  close(fullName: string, number: number, options: { merged?: boolean; reason?: string } = {}): void {
    const item = this.repo(fullName).items.get(number);
    if (!item) throw new Error(`no item ${fullName}#${number}`);
    item.state = 'closed';
    item.stateReason = item.pull ? null : (options.reason ?? 'completed');
    if (item.pull && options.merged) item.pull.merged = true;
    item.updatedAt = this.now();
  }

  private touch(fullName: string, number: number, at: string): void {
    const item = this.repo(fullName).items.get(number);
    if (item) item.updatedAt = at;
  }

  /** Requests counted since `from` (an index into `requests`). */
  countSince(from: number): {
    total: number;
    conditional: number;
    notModified: number;
    unconditional: RecordedRequest[];
  } {
    const slice = this.requests.slice(from);
    return {
      total: slice.length,
      conditional: slice.filter((r) => r.conditional).length,
      notModified: slice.filter((r) => r.status === 304).length,
      unconditional: slice.filter((r) => !r.conditional),
    };
  }

  // ---- HTTP ----

  private send(
    res: ServerResponse,
    req: IncomingMessage,
    status: number,
    body: unknown,
    conditional: boolean,
    extra: Record<string, string> = {},
  ): void {
    this.requests.push({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      conditional,
      status,
      authorization: req.headers.authorization,
    });
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(this.rateLimit.limit),
      'x-ratelimit-remaining': String(this.rateLimit.remaining),
      'x-ratelimit-reset': String(this.rateLimit.reset),
      'x-ratelimit-used': String(this.rateLimit.limit - this.rateLimit.remaining),
      'x-ratelimit-resource': 'core',
      ...extra,
    };
    if (status === 304) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  /** A 200 for a GET: honours If-None-Match (304 costs no rate limit), paginates arrays with Link. */
  private sendGet(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: unknown,
    paginate?: Paginate,
  ): void {
    let payload = body;
    const extra: Record<string, string> = {};
    if (paginate) {
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), this.perPageCap);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const slice = paginate.list.slice((page - 1) * perPage, page * perPage);
      payload = paginate.wrap ? paginate.wrap(slice) : slice;
      const last = Math.max(1, Math.ceil(paginate.list.length / perPage));
      const links: string[] = [];
      const at = (p: number) => {
        const u = new URL(url.toString());
        u.searchParams.set('page', String(p));
        return `${this.url}${u.pathname}${u.search}`;
      };
      if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
      if (page > 1) links.push(`<${at(1)}>; rel="first"`, `<${at(page - 1)}>; rel="prev"`);
      if (links.length > 0) extra.link = links.join(', ');
    }
    const text = JSON.stringify(payload);
    const etag = `"${createHash('sha1').update(`${url.pathname}${url.search}\n${text}`).digest('hex')}"`;
    extra.etag = etag;
    const ifNoneMatch = req.headers['if-none-match'];
    const conditional = typeof ifNoneMatch === 'string' && ifNoneMatch !== '';
    if (conditional && ifNoneMatch === etag) {
      this.send(res, req, 304, null, true, extra);
      return;
    }
    this.rateLimit.remaining = Math.max(0, this.rateLimit.remaining - 1);
    this.send(res, req, 200, payload, conditional, extra);
  }

  private async readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  private authorized(req: IncomingMessage): boolean {
    if (this.token === null) return true;
    const header = req.headers.authorization ?? '';
    return (
      header === `token ${this.token}` ||
      header === `bearer ${this.token}` ||
      header === `Bearer ${this.token}`
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    if (this.slow?.match.test(`${method} ${url.pathname}`)) {
      const { ms } = this.slow;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    if (this.failures && this.failures.count > 0) {
      this.failures.count -= 1;
      this.send(res, req, this.failures.status, { message: 'injected failure' }, false);
      return;
    }
    if (!this.authorized(req)) {
      this.send(res, req, 401, { message: 'Bad credentials' }, false);
      return;
    }
    if (method === 'POST' && url.pathname === '/graphql') {
      this.send(res, req, 200, graphqlAnswer(this, await this.readJson(req)), false);
      return;
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const repo = match ? this.repos.get(`${match[1]}/${match[2]}`.toLowerCase()) : undefined;
    const found = match && repo ? findRoute(method, match[3] ?? '') : null;
    if (!repo || !found) {
      this.send(res, req, 404, { message: 'Not Found' }, false);
      return;
    }
    const since = url.searchParams.get('since');
    const exchange: Exchange = {
      github: this,
      req,
      url,
      repo,
      params: found.params,
      send: (status, body) => this.send(res, req, status, body, false),
      sendGet: (body, paginate) => this.sendGet(req, res, url, body, paginate),
      readJson: () => this.readJson(req),
      afterSince: (entry) => since === null || entry.updatedAt >= since,
    };
    await found.route.handle(exchange);
  }
}
