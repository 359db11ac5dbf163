import { writeJsonAtomic } from '../session/atomic';
import { sessionPaths } from '../session/paths';
import { controlFileSchema } from '../session/schemas';
import type { FinishRequest, Flush, GoalSessionInput } from '../workflows/goal-session-types';
import { createSessionDirectory, writeFlush } from './session-files';

export function createSessionLifecycleActivities() {
  return {
    async initSession({ input, flush }: { input: GoalSessionInput; flush: Flush }): Promise<void> {
      createSessionDirectory(input);
      await writeFlush(flush);
    },

    async flush(flush: Flush): Promise<void> {
      await writeFlush(flush);
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
