import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that speaks the GitHub REST endpoints the bridge uses, over in-memory state the test
 * controls: ETag + 304 (counted), Link pagination, rate-limit headers, permissions, labels, comments, PRs,
 * and the one GraphQL query (closingIssuesReferences).
 */
export interface FakeUser {
  login: string;
  type?: string;
}

export interface FakeItem {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  stateReason: string | null;
  labels: string[];
  user: FakeUser;
  createdAt: string;
  updatedAt: string;
  pull?: {
    head: { ref: string; sha: string; owner: string };
    base: string;
    merged: boolean;
    draft: boolean;
    closingIssues: number[];
  };
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: FakeUser;
  createdAt: string;
  updatedAt: string;
}

export interface FakeReview {
  id: number;
  pull: number;
  body: string;
  state: string;
  user: FakeUser;
  submittedAt: string;
}

export interface FakeReviewComment extends FakeComment {
  path: string;
  line: number | null;
}

export interface FakeCheckRun {
  id: number;
  sha: string;
  name: string;
  status: string;
  conclusion: string | null;
}

export interface FakeRepo {
  owner: string;
  name: string;
  items: Map<number, FakeItem>;
  comments: FakeComment[];
  reviews: FakeReview[];
  reviewComments: FakeReviewComment[];
  checkRuns: FakeCheckRun[];
  permissions: Map<string, string>;
  /** Labels that exist; adding any other label fails with 422 when `strictLabels` is set. */
  labels: Set<string>;
  strictLabels: boolean;
  /** When set, every POST to an item's labels answers this (e.g. 403 for a token without issues:write). */
  refuseLabels: { status: number; message: string } | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  conditional: boolean;
  status: number;
  authorization: string | undefined;
}

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
    paginate?: { list: unknown[]; wrap?: (page: unknown[]) => unknown },
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

  private itemJson(repo: FakeRepo, item: FakeItem): Record<string, unknown> {
    const full = `${repo.owner}/${repo.name}`;
    const json: Record<string, unknown> = {
      id: item.number + 100000,
      number: item.number,
      title: item.title,
      body: item.body,
      state: item.state,
      state_reason: item.stateReason,
      labels: item.labels.map((name) => ({ name })),
      user: { login: item.user.login, type: item.user.type ?? 'User' },
      created_at: item.createdAt,
      updated_at: item.updatedAt,
      html_url: `https://github.com/${full}/${item.pull ? 'pull' : 'issues'}/${item.number}`,
    };
    if (item.pull)
      json.pull_request = {
        url: `${this.url}/repos/${full}/pulls/${item.number}`,
        merged_at: item.pull.merged ? item.updatedAt : null,
      };
    return json;
  }

  private pullJson(repo: FakeRepo, item: FakeItem): Record<string, unknown> {
    const pull = item.pull;
    if (!pull) throw new Error('not a pull request');
    const full = `${repo.owner}/${repo.name}`;
    return {
      ...this.itemJson(repo, item),
      merged: pull.merged,
      merged_at: pull.merged ? item.updatedAt : null,
      draft: pull.draft,
      head: {
        ref: pull.head.ref,
        sha: pull.head.sha,
        label: `${pull.head.owner}:${pull.head.ref}`,
        user: { login: pull.head.owner },
        repo: { full_name: `${pull.head.owner}/${repo.name}`, owner: { login: pull.head.owner } },
      },
      base: { ref: pull.base, repo: { full_name: full } },
    };
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
      const body = await this.readJson(req);
      const vars = (body.variables ?? {}) as { owner?: string; repo?: string; number?: number };
      const repo = this.repos.get(`${vars.owner}/${vars.repo}`.toLowerCase());
      const item = repo?.items.get(Number(vars.number));
      const nodes = (item?.pull?.closingIssues ?? []).map((n) => ({
        number: n,
        repository: { name: repo?.name, owner: { login: repo?.owner } },
      }));
      this.send(
        res,
        req,
        200,
        {
          data: {
            repository: repo
              ? { pullRequest: item?.pull ? { closingIssuesReferences: { nodes } } : null }
              : null,
          },
        },
        false,
      );
      return;
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const repo = match ? this.repos.get(`${match[1]}/${match[2]}`.toLowerCase()) : undefined;
    if (!match || !repo) {
      this.send(res, req, 404, { message: 'Not Found' }, false);
      return;
    }
    const rest = match[3] ?? '';
    const since = url.searchParams.get('since');
    const afterSince = (c: { updatedAt: string }) => since === null || c.updatedAt >= since;
    let m: RegExpExecArray | null;

    if (method === 'GET' && rest === '/issues') {
      const labels = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l !== '');
      const state = url.searchParams.get('state') ?? 'open';
      const list = [...repo.items.values()]
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.includes(l)))
        .sort((a, b) =>
          a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : b.number - a.number,
        )
        .map((i) => this.itemJson(repo, i));
      this.sendGet(req, res, url, null, { list });
      return;
    }
    if ((m = /^\/issues\/(\d+)$/.exec(rest)) && method === 'GET') {
      const item = repo.items.get(Number(m[1]));
      if (!item) return this.send(res, req, 404, { message: 'Not Found' }, false);
      this.sendGet(req, res, url, this.itemJson(repo, item));
      return;
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const number = Number(m[1]);
      if (!repo.items.has(number)) return this.send(res, req, 404, { message: 'Not Found' }, false);
      if (method === 'POST') {
        const body = await this.readJson(req);
        const login = this.token ? 'the-loop-bot' : 'anonymous';
        const comment = this.addComment(`${repo.owner}/${repo.name}`, number, String(body.body ?? ''), {
          login,
          type: 'Bot',
        });
        this.send(res, req, 201, this.commentJson(repo, comment), false);
        return;
      }
      const list = repo.comments
        .filter((c) => c.issue === number && afterSince(c))
        .map((c) => this.commentJson(repo, c));
      this.sendGet(req, res, url, null, { list });
      return;
    }
    if ((m = /^\/issues\/(\d+)\/labels$/.exec(rest)) && method === 'POST') {
      const item = repo.items.get(Number(m[1]));
      if (!item) return this.send(res, req, 404, { message: 'Not Found' }, false);
      const body = await this.readJson(req);
      const labels = Array.isArray(body.labels) ? body.labels.map(String) : [];
      if (repo.refuseLabels)
        return this.send(res, req, repo.refuseLabels.status, { message: repo.refuseLabels.message }, false);
      if (repo.strictLabels && labels.some((l) => !repo.labels.has(l)))
        return this.send(res, req, 422, { message: 'Validation Failed' }, false);
      for (const l of labels) if (!item.labels.includes(l)) item.labels.push(l);
      item.updatedAt = this.now();
      this.send(
        res,
        req,
        200,
        item.labels.map((name) => ({ name })),
        false,
      );
      return;
    }
    if ((m = /^\/issues\/(\d+)\/labels\/([^/]+)$/.exec(rest)) && method === 'DELETE') {
      const item = repo.items.get(Number(m[1]));
      const label = decodeURIComponent(m[2] ?? '');
      if (!item || !item.labels.includes(label)) {
        return this.send(res, req, 404, { message: 'Label does not exist' }, false);
      }
      if (repo.refuseLabels)
        return this.send(res, req, repo.refuseLabels.status, { message: repo.refuseLabels.message }, false);
      item.labels = item.labels.filter((l) => l !== label);
      item.updatedAt = this.now();
      this.send(
        res,
        req,
        200,
        item.labels.map((name) => ({ name })),
        false,
      );
      return;
    }
    if (rest === '/pulls' && method === 'GET') {
      const head = url.searchParams.get('head');
      const state = url.searchParams.get('state') ?? 'open';
      const list = [...repo.items.values()]
        .filter((i) => i.pull && (state === 'all' || i.state === state))
        .filter(
          (i) =>
            head === null ||
            `${i.pull?.head.owner}:${i.pull?.head.ref}` === head ||
            (!head.includes(':') && i.pull?.head.ref === head),
        )
        .map((i) => this.pullJson(repo, i));
      this.sendGet(req, res, url, null, { list });
      return;
    }
    if (rest === '/pulls' && method === 'POST') {
      const body = await this.readJson(req);
      const number = Math.max(0, ...repo.items.keys()) + 1;
      const headText = String(body.head ?? '');
      const [headOwner, headRef] = headText.includes(':') ? headText.split(':') : [repo.owner, headText];
      const item = this.addPull(`${repo.owner}/${repo.name}`, {
        number,
        head: headRef ?? '',
        title: String(body.title ?? ''),
        body: String(body.body ?? ''),
      });
      if (item.pull) {
        item.pull.head.owner = headOwner ?? repo.owner;
        item.pull.base = String(body.base ?? 'main');
        item.pull.draft = body.draft === true;
      }
      this.send(res, req, 201, this.pullJson(repo, item), false);
      return;
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
      const item = repo.items.get(Number(m[1]));
      if (!item?.pull) return this.send(res, req, 404, { message: 'Not Found' }, false);
      this.sendGet(req, res, url, this.pullJson(repo, item));
      return;
    }
    if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(rest)) && method === 'GET') {
      const number = Number(m[1]);
      const full = `${repo.owner}/${repo.name}`;
      const list = repo.reviews
        .filter((r) => r.pull === number)
        .map((r) => ({
          id: r.id,
          body: r.body,
          state: r.state,
          user: { login: r.user.login, type: r.user.type ?? 'User' },
          submitted_at: r.submittedAt,
          html_url: `https://github.com/${full}/pull/${number}#pullrequestreview-${r.id}`,
        }));
      this.sendGet(req, res, url, null, { list });
      return;
    }
    if ((m = /^\/pulls\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
      const number = Number(m[1]);
      const full = `${repo.owner}/${repo.name}`;
      const list = repo.reviewComments
        .filter((c) => c.issue === number && afterSince(c))
        .map((c) => ({
          id: c.id,
          body: c.body,
          path: c.path,
          line: c.line,
          user: { login: c.user.login, type: c.user.type ?? 'User' },
          created_at: c.createdAt,
          updated_at: c.updatedAt,
          html_url: `https://github.com/${full}/pull/${number}#discussion_r${c.id}`,
        }));
      this.sendGet(req, res, url, null, { list });
      return;
    }
    if ((m = /^\/commits\/(.+)\/check-runs$/.exec(rest)) && method === 'GET') {
      let sha = decodeURIComponent(m[1] ?? '');
      const pullHead = /^(?:refs\/)?pull\/(\d+)\/head$/.exec(sha);
      if (pullHead) sha = repo.items.get(Number(pullHead[1]))?.pull?.head.sha ?? '';
      const runs = repo.checkRuns
        .filter((r) => r.sha === sha)
        .map((r) => ({
          id: r.id,
          name: r.name,
          status: r.status,
          conclusion: r.conclusion,
          head_sha: r.sha,
          url: `${this.url}/repos/${repo.owner}/${repo.name}/check-runs/${r.id}`,
          html_url: `https://github.com/${repo.owner}/${repo.name}/runs/${r.id}`,
        }));
      this.sendGet(req, res, url, null, {
        list: runs,
        wrap: (page) => ({ total_count: runs.length, check_runs: page }),
      });
      return;
    }
    if ((m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest)) && method === 'GET') {
      const login = decodeURIComponent(m[1] ?? '');
      const role = repo.permissions.get(login.toLowerCase());
      if (role === undefined) return this.send(res, req, 404, { message: `${login} is not a user` }, false);
      const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      this.sendGet(req, res, url, { permission, role_name: role, user: { login } });
      return;
    }
    this.send(res, req, 404, { message: 'Not Found' }, false);
  }

  private commentJson(repo: FakeRepo, c: FakeComment): Record<string, unknown> {
    return {
      id: c.id,
      body: c.body,
      user: { login: c.user.login, type: c.user.type ?? 'User' },
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${c.issue}#issuecomment-${c.id}`,
    };
  }
}
