import { writeJsonAtomic } from '../session/json-file';
import { sessionPaths } from '../session/paths';
import { createSessionDirectory } from '../session/session-dir';
import { controlFileSchema } from '../session/schemas';
import type {
  FinishRequest,
  Flush,
  GoalSessionInput,
  ProjectionReport,
} from '../workflows/goal-session-types';
import { writeFlush } from './session-files';

export function createSessionLifecycleActivities() {
  return {
    async initSession({ input, flush }: { input: GoalSessionInput; flush: Flush }): Promise<void> {
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
    },

    flush(flush: Flush): Promise<ProjectionReport> {
      return writeFlush(flush);
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
