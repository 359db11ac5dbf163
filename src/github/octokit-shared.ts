import { RequestError } from 'octokit';
import type { Actor, Conditional } from './api';

// What every request group shares: conditional paging, "gone" answers, and the fields mapped alike everywhere.

export type Headers = Record<string, string | number | undefined>;

export const PER_PAGE = 100;
const MAX_PAGES = 50;

interface RawUser {
  login: string;
  type?: string;
}

export function actor(user: RawUser | null | undefined): Actor {
  return { login: user?.login ?? 'ghost', type: user?.type ?? 'User' };
}

export function labelNames(labels: readonly (string | { name?: string })[] | undefined): string[] {
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

/** Page 1 conditionally, then every following page; a 304 answers `modified: false`. */
export async function conditional<R, T>(
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

export function notFound(error: unknown): boolean {
  return error instanceof RequestError && (error.status === 404 || error.status === 410);
}
