import { recordGoalSpend } from '../budget/goal-spend';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { appendLinesDurably, writeFileAtomic } from '../session/atomic';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { isErrno } from '../errors';
import { mergeHistory } from '../session/history';
import { readLastJsonl } from '../session/jsonl';
import { iterationPaths, sessionPaths } from '../session/paths';
import {
  sessionEventSchema,
  sessionStateFileSchema,
  type SessionEvent,
  type SessionStateFile,
} from '../session/schemas';
import type { Flush, ProjectionReport } from '../workflows/goal-session/types';

type History = SessionStateFile['history'];

/** What a projection needs of the state.json it replaces. */
interface OnDisk {
  history: History;
  projection: number | undefined;
}

/**
 * What this worker last wrote to each state.json, with the file's identity at that moment: while the file is still
 * that one, the next projection merges into it without reading and re-validating a file that grows with every turn.
 */
const REMEMBERED_SESSIONS = 64;
const written = new Map<string, { stamp: string } & OnDisk>();

function fileStamp(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

function stateOnDisk(file: string): OnDisk {
  const cached = written.get(file);
  if (cached && cached.stamp === fileStamp(file)) return cached;
  try {
    const state = readJsonIfExists(file, sessionStateFileSchema);
    return { history: state?.history ?? [], projection: state?.projection };
  } catch {
    // An unreadable projection is rebuilt from what the workflow sends.
    return { history: [], projection: undefined };
  }
}

/**
 * The full state.json for a flush: its recent history entries merged into the file's, by iteration number. Null when
 * the file holds a newer projection: this flush's activity ran late (it waited for a slot, or was retried) and
 * carries an older state, which must not replace the newer one. (Files without numbers are always replaced.)
 */
export function projectState(flush: Flush): SessionStateFile | null {
  const file = sessionPaths(flush.sessionDir).state;
  const onDisk = stateOnDisk(file);
  const mine = flush.state.projection;
  if (mine !== undefined && onDisk.projection !== undefined && mine < onDisk.projection) return null;
  return { ...flush.state, history: mergeHistory(onDisk.history, flush.state.history) };
}

/**
 * Writes state.json (whole) and remembers what it wrote; see writtenHistory. Atomic but not fsynced: it is a
 * projection of the workflow's state, rewritten by every activity, so a machine crash costs at most a projection
 * that the next activity replaces. (An fsync here was a millisecond on every turn's critical path.)
 */
export function writeStateFile(sessionDir: string, state: SessionStateFile): void {
  const file = sessionPaths(sessionDir).state;
  const data = writeJsonAtomic(file, sessionStateFileSchema, state, { fsync: false });
  const stamp = fileStamp(file);
  written.delete(file);
  if (stamp) written.set(file, { stamp, history: data.history, projection: data.projection });
  // A worker hosts many sessions over its life: remember only the most recently written ones.
  for (const oldest of written.keys()) {
    if (written.size <= REMEMBERED_SESSIONS) break;
    written.delete(oldest);
  }
}

/**
 * state.json first (unless a newer projection is already there), then the events: a reader that sees an event can
 * trust state.json already reflects it. Both are in place when this returns; the promise resolves once the events
 * are on disk. A projection may carry events already written (a retried attempt, or the journal sending again what
 * a failed activity carried): those whose seq is not past the file's last one are skipped, so the file stays one
 * event per seq. An events.jsonl that ends before this projection's first event (deleted or cut short) is rewritten
 * whole from the workflow's own record of its events (`recover`), never continued from what is left.
 */
export async function writeFlush(
  flush: Flush,
  recover?: () => Promise<SessionEvent[]>,
  spendRoot?: string,
): Promise<ProjectionReport> {
  const paths = sessionPaths(flush.sessionDir);
  const state = projectState(flush);
  if (state) writeStateFile(flush.sessionDir, state);
  // the turns' cost into the state directory's ledger once state.json holds them (the fleet budget reads it)
  if (spendRoot !== undefined) recordGoalSpend(spendRoot, flush.sessionDir, flush.state.history);
  let lastSeq = flush.events.length > 0 ? (readLastJsonl(paths.events, sessionEventSchema)?.seq ?? 0) : 0;
  const firstSeq = flush.events[0]?.seq ?? 0;
  let eventsRebuilt: number | undefined;
  if (recover && lastSeq < firstSeq - 1) {
    const known = await recover();
    const events = [...known.filter((event) => event.seq < firstSeq), ...flush.events];
    writeFileAtomic(
      paths.events,
      events.map((event) => `${JSON.stringify(sessionEventSchema.parse(event))}\n`).join(''),
    );
    lastSeq = flush.events.at(-1)?.seq ?? lastSeq;
    eventsRebuilt = events.length;
  }
  const durable = appendLinesDurably(
    paths.events,
    flush.events
      .filter((event) => event.seq > lastSeq)
      .map((event) => JSON.stringify(sessionEventSchema.parse(event))),
  );
  for (const { iteration, routineId } of flush.acknowledge) {
    rmSync(iterationPaths(flush.sessionDir, iteration, routineId).pendingFinishedRequest, { force: true });
  }
  // a newer projection on disk was written by a later activity, which reports for itself
  const historyGap = state !== null && !holdsEveryEntry(state.history, flush.heldFrom ?? 1);
  await durable;
  return eventsRebuilt === undefined ? { historyGap } : { historyGap, eventsRebuilt };
}

/**
 * Every turn has its history entry: a state.json that was deleted or cut short (and so rebuilt from the
 * projection's newest entries alone) lacks some of those the workflow holds, from `heldFrom` on.
 */
function holdsEveryEntry(history: History, heldFrom: number): boolean {
  return history
    .filter((entry) => entry.iteration >= heldFrom)
    .every((entry, i) => entry.iteration === heldFrom + i);
}

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return '';
    throw error;
  }
}
