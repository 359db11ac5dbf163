import type { ActivityDeps } from './deps';
import { createWorkItemActivities } from './work-item';
import { createGitHubActivities } from './github';
import { createIterationActivities } from './run-iteration';
import { createSessionLifecycleActivities } from './session-lifecycle';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWorkItemActivities(deps),
    ...createGitHubActivities(deps),
    ...createSessionLifecycleActivities(),
    ...createIterationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
