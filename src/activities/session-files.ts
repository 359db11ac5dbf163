import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { appendLinesDurably, readJsonIfExists, writeFileAtomic, writeJsonAtomic } from '../session/atomic';
import { mergeHistory } from '../session/history';
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

type History = SessionStateFile['history'];

/**
 * The history this worker last wrote to each state.json, with the file's identity at that moment: while the file is
 * still that one, the next projection merges into it without reading and re-validating a file that grows with
 * every turn.
 */
const REMEMBERED_SESSIONS = 64;
const writtenHistory = new Map<string, { stamp: string; history: History }>();

function fileStamp(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

function historyOnDisk(file: string): History {
  const cached = writtenHistory.get(file);
  if (cached && cached.stamp === fileStamp(file)) return cached.history;
  try {
    return readJsonIfExists(file, sessionStateFileSchema)?.history ?? [];
  } catch {
    // An unreadable projection is rebuilt from what the workflow sends.
    return [];
  }
}

/** The full state.json for a flush: its recent history entries merged into the file's, by iteration number. */
export function projectState(flush: Flush): SessionStateFile {
  const file = sessionPaths(flush.sessionDir).state;
  return { ...flush.state, history: mergeHistory(historyOnDisk(file), flush.state.history) };
}

/**
 * Writes state.json (whole) and remembers what it wrote; see writtenHistory. Atomic but not fsynced: it is a
 * projection of the workflow's state, rewritten by every activity, so a machine crash costs at most a projection
 * that the next activity replaces. (An fsync here was a millisecond on every turn's critical path.)
 */
export function writeStateFile(sessionDir: string, state: SessionStateFile): void {
  const file = sessionPaths(sessionDir).state;
  const written = writeJsonAtomic(file, sessionStateFileSchema, state, { fsync: false });
  const stamp = fileStamp(file);
  writtenHistory.delete(file);
  if (stamp) writtenHistory.set(file, { stamp, history: written.history });
  // A worker hosts many sessions over its life: remember only the most recently written ones.
  for (const oldest of writtenHistory.keys()) {
    if (writtenHistory.size <= REMEMBERED_SESSIONS) break;
    writtenHistory.delete(oldest);
  }
}

/**
 * state.json first, then the events: a reader that sees an event can trust state.json already reflects it. Both
 * are in place when this returns; the promise resolves once the events are on disk.
 */
export function writeFlush(flush: Flush): Promise<void> {
  const paths = sessionPaths(flush.sessionDir);
  writeStateFile(flush.sessionDir, projectState(flush));
  const durable = appendLinesDurably(
    paths.events,
    flush.events.map((event) => JSON.stringify(sessionEventSchema.parse(event))),
  );
  for (const { iteration, routineId } of flush.acknowledge) {
    rmSync(iterationPaths(flush.sessionDir, iteration, routineId).pendingFinishedRequest, { force: true });
  }
  return durable;
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
  // The session state is no part of the user's project: an agent's `git add -A` must not commit it.
  const loopDir = dirname(dirname(paths.dir));
  if (basename(loopDir) === '.loopy_loop') {
    const gitignore = join(loopDir, '.gitignore');
    writeIfMissing(gitignore, () => writeFileAtomic(gitignore, '*\n'));
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
