import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { appendLines, readJsonIfExists, writeFileAtomic, writeJsonAtomic } from '../session/atomic';
import { iterationPaths, sessionPaths } from '../session/paths';
import { PROJECT_STATE_README } from '../session/project-state';
import {
  childrenFileSchema,
  controlFileSchema,
  sessionEventSchema,
  sessionFileSchema,
  sessionStateFileSchema,
  type SessionStateFile,
} from '../session/schemas';
import type { Flush, GoalSessionInput } from '../workflows/goal-session-types';

/** The full state.json for a flush: its recent history entries merged into the file's, by iteration number. */
export function projectState(flush: Flush): SessionStateFile {
  const file = sessionPaths(flush.sessionDir).state;
  let earlier: SessionStateFile['history'] = [];
  try {
    earlier = readJsonIfExists(file, sessionStateFileSchema)?.history ?? [];
  } catch {
    // An unreadable projection is rebuilt from what the workflow sends.
  }
  const byIteration = new Map(earlier.map((entry) => [entry.iteration, entry]));
  for (const entry of flush.state.history) byIteration.set(entry.iteration, entry);
  const history = [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);
  return { ...flush.state, history };
}

/** state.json first, then the events: a reader that sees an event can trust state.json already reflects it. */
export function writeFlush(flush: Flush): void {
  const paths = sessionPaths(flush.sessionDir);
  writeJsonAtomic(paths.state, sessionStateFileSchema, projectState(flush));
  appendLines(
    paths.events,
    flush.events.map((event) => JSON.stringify(sessionEventSchema.parse(event))),
  );
  for (const { iteration, routineId } of flush.acknowledge) {
    rmSync(iterationPaths(flush.sessionDir, iteration, routineId).pendingFinishedRequest, { force: true });
  }
}

function writeIfMissing(file: string, write: () => void): void {
  if (!existsSync(file)) write();
}

/** Creates the layout doc's session directory; safe to repeat (a retried attempt keeps what exists). */
export function createSessionDirectory(input: GoalSessionInput): void {
  const paths = sessionPaths(input.sessionDir);
  for (const dir of [
    paths.dir,
    paths.childRequestsDir,
    paths.childrenDir,
    paths.projectStateDir,
    paths.evalChecksDir,
    paths.evalResultsDir,
    paths.harnessOutputsDir,
    paths.iterationsDir,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeIfMissing(paths.goal, () =>
    writeFileAtomic(paths.goal, input.goal.endsWith('\n') ? input.goal : `${input.goal}\n`),
  );
  writeIfMissing(paths.session, () =>
    writeJsonAtomic(paths.session, sessionFileSchema, {
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
    }),
  );
  writeIfMissing(paths.control, () =>
    writeJsonAtomic(paths.control, controlFileSchema, {
      state: 'running',
      reason: null,
      updated_at: input.createdAt,
      updated_by: 'coordinator',
    }),
  );
  writeIfMissing(paths.updatesFromUser, () => writeFileAtomic(paths.updatesFromUser, ''));
  writeIfMissing(paths.children, () =>
    writeJsonAtomic(paths.children, childrenFileSchema, { schema_version: 1, children: [] }),
  );
  writeIfMissing(paths.projectStateReadme, () =>
    writeFileAtomic(paths.projectStateReadme, PROJECT_STATE_README),
  );
  writeIfMissing(paths.finished, () =>
    writeFileAtomic(paths.finished, '# finished\n\nAppend-only ledger of outer-verified completed work.\n'),
  );
}

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
