import type { ActivityDeps } from './deps';
import { createWorkItemActivities } from './work-item';
import { createGitHubActivities } from './github';
import { createIterationActivities } from './run-iteration';
import { createSessionLifecycleActivities } from './session-lifecycle';
import { createChildActivities, withChildRequestScan } from './child-requests';
import { withFileFaults } from './file-faults';
import { createAdoptActivities } from './adopt-session';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createWorkItemActivities(deps),
    ...createGitHubActivities(deps),
    // A full disk or a read-only session directory stops a goal session with the reason, not endless retries.
    ...withFileFaults(createSessionLifecycleActivities(deps)),
    // The iteration's epilogue scans child_requests/ (src/activities/child-requests.ts).
    ...withFileFaults(withChildRequestScan(createIterationActivities(deps))),
    ...createChildActivities(deps),
    ...withFileFaults(createAdoptActivities(deps)),
  };
}

export type Activities = ReturnType<typeof createActivities>;
