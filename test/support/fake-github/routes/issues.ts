import { itemJson } from '../json';
import { notFound, type Route } from './route';

/** Listing a repository's issues (and pull requests, as GitHub does) and reading one. */
export const issueRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/issues$/,
    handle(x) {
      const labels = (x.url.searchParams.get('labels') ?? '').split(',').filter((l) => l !== '');
      const state = x.url.searchParams.get('state') ?? 'open';
      const list = [...x.repo.items.values()]
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.includes(l)))
        .sort((a, b) =>
          a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : b.number - a.number,
        )
        .map((i) => itemJson(x.github.url, x.repo, i));
      x.sendGet(null, { list });
    },
  },
  {
    method: 'GET',
    path: /^\/issues\/(\d+)$/,
    handle(x) {
      const item = x.repo.items.get(Number(x.params[0]));
      if (!item) return notFound(x);
      x.sendGet(itemJson(x.github.url, x.repo, item));
    },
  },
];
