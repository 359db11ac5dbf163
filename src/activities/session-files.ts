import { readFileSync, rmSync, statSync } from 'node:fs';
import { appendLinesDurably } from '../session/atomic';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { isErrno } from '../errors';
import { mergeHistory } from '../session/history';
import { readLastJsonl } from '../session/jsonl';
import { iterationPaths, sessionPaths } from '../session/paths';
import { sessionEventSchema, sessionStateFileSchema, type SessionStateFile } from '../session/schemas';
import type { Flush } from '../workflows/goal-session-types';

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
 * are in place when this returns; the promise resolves once the events are on disk. A projection may carry events
 * already written (a retried attempt, or the journal sending again what a failed activity carried): those whose
 * seq is not past the file's last one are skipped, so the file stays one event per seq.
 */
export function writeFlush(flush: Flush): Promise<void> {
  const paths = sessionPaths(flush.sessionDir);
  writeStateFile(flush.sessionDir, projectState(flush));
  const lastSeq = flush.events.length > 0 ? (readLastJsonl(paths.events, sessionEventSchema)?.seq ?? 0) : 0;
  const durable = appendLinesDurably(
    paths.events,
    flush.events
      .filter((event) => event.seq > lastSeq)
      .map((event) => JSON.stringify(sessionEventSchema.parse(event))),
  );
  for (const { iteration, routineId } of flush.acknowledge) {
    rmSync(iterationPaths(flush.sessionDir, iteration, routineId).pendingFinishedRequest, { force: true });
  }
  return durable;
}

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return '';
    throw error;
  }
}
