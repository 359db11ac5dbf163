import type { IncomingMessage } from 'node:http';
import type { FakeRepo } from '../model';
import type { FakeGitHub } from '../server';

/** How a list is paged: the whole list, and what wraps one page (check runs come as `{ total_count, check_runs }`). */
export interface Paginate {
  list: unknown[];
  wrap?: (page: unknown[]) => unknown;
}

/** One request to a repository's endpoint, as a route sees it. */
export interface Exchange {
  readonly github: FakeGitHub;
  readonly req: IncomingMessage;
  readonly url: URL;
  /** The repository the path names (`/repos/<owner>/<name>/…`); it exists. */
  readonly repo: FakeRepo;
  /** The route pattern's captures, in order. */
  readonly params: string[];
  /** Answers `status` with `body` as JSON. */
  send(status: number, body: unknown): void;
  /** A 200 for a GET: honours If-None-Match (304 costs no rate limit), paginates a list with Link. */
  sendGet(body: unknown, paginate?: Paginate): void;
  readJson(): Promise<Record<string, unknown>>;
  /** Whether an entry is at or after the request's `since` parameter (every entry when there is none). */
  afterSince(entry: { updatedAt: string }): boolean;
}

/** One endpoint under `/repos/<owner>/<name>`: its method (null: any) and the rest of its path. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | null;
  path: RegExp;
  handle(exchange: Exchange): Promise<void> | void;
}

export const notFound = (x: Exchange): void => x.send(404, { message: 'Not Found' });
