import type { Route } from './route';

/** The check runs of a commit, named by its sha or as `pull/<n>/head`. */
export const checkRunRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/commits\/(.+)\/check-runs$/,
    handle(x) {
      const { repo } = x;
      let sha = decodeURIComponent(x.params[0] ?? '');
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
          url: `${x.github.url}/repos/${repo.owner}/${repo.name}/check-runs/${r.id}`,
          html_url: `https://github.com/${repo.owner}/${repo.name}/runs/${r.id}`,
        }));
      x.sendGet(null, {
        list: runs,
        wrap: (page) => ({ total_count: runs.length, check_runs: page }),
      });
    },
  },
];
