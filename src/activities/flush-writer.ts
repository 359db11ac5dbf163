import { workItemDirs } from '../work-item/paths';
import type { Flush, ProjectionReport } from '../workflows/goal-session/types';
import type { ActivityDeps } from './deps';
import { recoverSessionEvents } from './session-event-history';
import { writeFlush } from './session-files';

export type FlushWriter = (flush: Flush) => Promise<ProjectionReport>;

/**
 * How the worker's activities write a goal session's projection: events rebuilt from the workflow's history when the
 * file lost them, and the turns' cost into the state directory's spend ledger.
 */
export function flushWriter(deps: Pick<ActivityDeps, 'config' | 'stateDir'>): FlushWriter {
  const spendRoot = workItemDirs(deps.config, deps.stateDir).stateRoot;
  return (flush) => writeFlush(flush, recoverSessionEvents, spendRoot);
}
