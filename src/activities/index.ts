import type { ActivityDeps } from './deps';
import { createWorkItemActivities } from './work-item';
import { createGitHubActivities } from './github';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWorkItemActivities(deps),
    ...createGitHubActivities(deps),
    async ping(): Promise<string> {
      return deps.hostId;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
