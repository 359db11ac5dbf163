import { commentJson } from '../json';
import { notFound, type Route } from './route';

const path = /^\/issues\/(\d+)\/comments$/;

/** An issue's comments: a POST adds one (by the bot when the fake wants a token); any other method lists them. */
export const commentRoutes: Route[] = [
  {
    method: 'POST',
    path,
    async handle(x) {
      const number = Number(x.params[0]);
      if (!x.repo.items.has(number)) return notFound(x);
      const body = await x.readJson();
      const login = x.github.token ? 'the-loop-bot' : 'anonymous';
      const comment = x.github.addComment(`${x.repo.owner}/${x.repo.name}`, number, String(body.body ?? ''), {
        login,
        type: 'Bot',
      });
      x.send(201, commentJson(x.repo, comment));
    },
  },
  {
    method: null,
    path,
    handle(x) {
      const number = Number(x.params[0]);
      if (!x.repo.items.has(number)) return notFound(x);
      const list = x.repo.comments
        .filter((c) => c.issue === number && x.afterSince(c))
        .map((c) => commentJson(x.repo, c));
      x.sendGet(null, { list });
    },
  },
];
