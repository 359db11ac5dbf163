import { writeJsonAtomic } from '../session/json-file';
import { sessionPaths } from '../session/paths';
import { createSessionDirectory } from '../session/session-dir';
import { controlFileSchema } from '../session/schemas';
import type {
  FinishRequest,
  Flush,
  GoalSessionInput,
  ProjectionReport,
  StepStartSignal,
} from '../workflows/goal-session/types';
import type { ActivityDeps } from './deps';
import { flushWriter } from './flush-writer';
import { workItemBudgetWait } from '../budget/wait';
import { workItemDirs } from '../work-item/paths';
import { reportingStepStart } from './step-started';

export function createSessionLifecycleActivities(deps: ActivityDeps) {
  const writeFlush = flushWriter(deps);
  const { stateRoot } = workItemDirs(deps.config, deps.stateDir);
  return {
    async initSession({
      input,
      flush,
      startSignal,
    }: {
      input: GoalSessionInput;
      flush: Flush;
      startSignal?: StepStartSignal;
    }): Promise<void> {
      await reportingStepStart(startSignal, async () => {
        createSessionDirectory({
          sessionDir: input.sessionDir,
          goal: input.goal,
          session: {
            session_id: input.sessionId,
            goal_hash: input.goalHash,
            created_at: input.createdAt,
            cwd: input.cwd,
            workflow_id: input.sessionId,
            task_queue: input.taskQueue,
            host_queue: input.hostQueue,
            harness: input.harness,
            parent_session_id: input.parentSessionId,
            routines_file: input.routinesFile,
          },
          createdBy: 'coordinator',
        });
        await writeFlush(flush);
      });
    },

    flush(flush: Flush): Promise<ProjectionReport> {
      return writeFlush(flush);
    },

    /**
     * Before a turn: the projection first, whose turns go into the spend ledger, then the fleet's budget (budget.daily,
     * budget.monthly): what was spent of which, with the command that raises it, when one is spent; else null.
     */
    async fleetBudgetReached(
      flush: Flush,
    ): Promise<{ projection: ProjectionReport; reached: string | null }> {
      const projection = await writeFlush(flush);
      const reached = workItemBudgetWait(deps.config, stateRoot, null, 0)?.detail ?? null;
      return { projection, reached };
    },

    /** The one stop reason lands in control.json and state.json alike. */
    async finishSession({ flush, stop }: FinishRequest): Promise<void> {
      writeJsonAtomic(sessionPaths(flush.sessionDir).control, controlFileSchema, {
        state: 'stopped',
        reason: stop.reason,
        kind: stop.kind,
        updated_at: new Date().toISOString(),
        updated_by: 'coordinator',
      });
      await writeFlush(flush);
    },
  };
}
