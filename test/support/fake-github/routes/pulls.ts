import { pullJson } from '../json';
import { notFound, type Route } from './route';

/** Pull requests: listing (by head), opening one, reading one. */
export const pullRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/pulls$/,
    handle(x) {
      const head = x.url.searchParams.get('head');
      const state = x.url.searchParams.get('state') ?? 'open';
      const list = [...x.repo.items.values()]
        .filter((i) => i.pull && (state === 'all' || i.state === state))
        .filter(
          (i) =>
            head === null ||
            `${i.pull?.head.owner}:${i.pull?.head.ref}` === head ||
            (!head.includes(':') && i.pull?.head.ref === head),
        )
        .map((i) => pullJson(x.github.url, x.repo, i));
      x.sendGet(null, { list });
    },
  },
  {
    method: 'POST',
    path: /^\/pulls$/,
    async handle(x) {
      const { repo } = x;
      const body = await x.readJson();
      const number = Math.max(0, ...repo.items.keys()) + 1;
      const headText = String(body.head ?? '');
      const [headOwner, headRef] = headText.includes(':') ? headText.split(':') : [repo.owner, headText];
      const item = x.github.addPull(`${repo.owner}/${repo.name}`, {
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
      x.send(201, pullJson(x.github.url, repo, item));
    },
  },
  {
    method: 'GET',
    path: /^\/pulls\/(\d+)$/,
    handle(x) {
      const item = x.repo.items.get(Number(x.params[0]));
      if (!item?.pull) return notFound(x);
      x.sendGet(pullJson(x.github.url, x.repo, item));
    },
  },
];
