import type { Route } from './route';

/** A pull request's reviews and its review comments (the comments on lines of its diff). */
export const reviewRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/pulls\/(\d+)\/reviews$/,
    handle(x) {
      const number = Number(x.params[0]);
      const full = `${x.repo.owner}/${x.repo.name}`;
      const list = x.repo.reviews
        .filter((r) => r.pull === number)
        .map((r) => ({
          id: r.id,
          body: r.body,
          state: r.state,
          user: { login: r.user.login, type: r.user.type ?? 'User' },
          submitted_at: r.submittedAt,
          html_url: `https://github.com/${full}/pull/${number}#pullrequestreview-${r.id}`,
        }));
      x.sendGet(null, { list });
    },
  },
  {
    method: 'GET',
    path: /^\/pulls\/(\d+)\/comments$/,
    handle(x) {
      const number = Number(x.params[0]);
      const full = `${x.repo.owner}/${x.repo.name}`;
      const list = x.repo.reviewComments
        .filter((c) => c.issue === number && x.afterSince(c))
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
      x.sendGet(null, { list });
    },
  },
];
