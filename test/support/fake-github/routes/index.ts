import { checkRunRoutes } from './check-runs';
import { collaboratorRoutes } from './collaborators';
import { commentRoutes } from './comments';
import { issueRoutes } from './issues';
import { labelRoutes } from './labels';
import { pullRoutes } from './pulls';
import { reviewRoutes } from './reviews';
import type { Route } from './route';

export { graphqlAnswer } from './graphql';
export type { Exchange, Paginate, Route } from './route';

/** Every endpoint under `/repos/<owner>/<name>`, by resource. The first that matches answers. */
const routes: Route[] = [
  ...issueRoutes,
  ...commentRoutes,
  ...labelRoutes,
  ...pullRoutes,
  ...reviewRoutes,
  ...checkRunRoutes,
  ...collaboratorRoutes,
];

/** The route for `method` and the rest of a repository path, with its pattern's captures; null when none. */
export function findRoute(method: string, rest: string): { route: Route; params: string[] } | null {
  for (const route of routes) {
    if (route.method !== null && route.method !== method) continue;
    const match = route.path.exec(rest);
    if (match) return { route, params: match.slice(1).map((p) => p ?? '') };
  }
  return null;
}
