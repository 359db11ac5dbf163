import { recordGoalSpend } from '../budget/goal-spend';
import { readFileSync, rmSync } from 'node:fs';
import { appendLinesDurably, writeFileAtomic } from '../session/atomic';
import { fileStamp } from '../session/file-stamp';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { isErrno } from '../errors';
import { boundHistory, mergeHistory, NOTHING_EARLIER, STATE_HISTORY_ENTRIES } from '../session/history';
import { readJsonl, readLastJsonl, readTailJsonl } from '../session/jsonl';
import { unpricedModelsOf } from '../session/unpriced-models';
import { iterationPaths, sessionPaths } from '../session/paths';
import {
  historyEntrySchema,
  sessionEventSchema,
  sessionStateFileSchema,
  type EarlierHistory,
  type SessionEvent,
  type SessionStateFile,
} from '../session/schemas';
import type { Flush, ProjectionReport } from '../workflows/goal-session/types';

type History = SessionStateFile['history'];

/** What a projection needs of the state.json it replaces. */
interface OnDisk {
  history: History;
  projection: number | undefined;
  earlier: EarlierHistory;
}

/**
 * What this worker last wrote to each state.json, with the file's identity at that moment: while the file is still
 * that one, the next projection merges into it without reading and re-validating it. Likewise which of the
 * unsummed entries it appended to each history.jsonl.
 */
const REMEMBERED_SESSIONS = 64;
const written = new Map<string, { stamp: string } & OnDisk>();
const appended = new Map<string, { stamp: string; held: Set<number> }>();

function remember<T>(cache: Map<string, T>, file: string, value: T): void {
  cache.delete(file);
  cache.set(file, value);
  // A worker hosts many sessions over its life: remember only the most recently written ones.
  for (const oldest of cache.keys()) {
    if (cache.size <= REMEMBERED_SESSIONS) break;
    cache.delete(oldest);
  }
}

function stateOnDisk(sessionDir: string): OnDisk {
  const paths = sessionPaths(sessionDir);
  const cached = written.get(paths.state);
  if (cached && cached.stamp === fileStamp(paths.state)) return cached;
  let state: SessionStateFile | null = null;
  try {
    state = readJsonIfExists(paths.state, sessionStateFileSchema);
  } catch {
    // An unreadable projection is rebuilt from history.jsonl and what the workflow sends.
  }
  if (state?.earlier_history) {
    return { history: state.history, projection: state.projection, earlier: state.earlier_history };
  }
  // No sums: a state.json written before history.jsonl (its history holds every turn), or none at all (deleted,
  // unreadable, or not written yet): the whole history, once, from both files.
  return {
    history: mergeHistory(readJsonl(paths.history, historyEntrySchema), state?.history ?? []),
    projection: state?.projection,
    earlier: NOTHING_EARLIER,
  };
}

/**
 * The full state.json for a flush: its recent history entries merged into the file's, by iteration number (with
 * the file's sums of the older ones). Null when the file holds a newer projection: this flush's activity ran late
 * (it waited for a slot, or was retried) and carries an older state, which must not replace the newer one. (Files
 * without numbers are always replaced.)
 */
export function projectState(flush: Flush): SessionStateFile | null {
  const onDisk = stateOnDisk(flush.sessionDir);
  const mine = flush.state.projection;
  if (mine !== undefined && onDisk.projection !== undefined && mine < onDisk.projection) return null;
  return {
    ...flush.state,
    history: mergeHistory(onDisk.history, flush.state.history),
    earlier_history: onDisk.earlier,
  };
}

/**
 * The entries of `state` not summed yet that history.jsonl lacks (summed ones are in it). When this worker wrote the
 * file last, it knows which it appended; else (another worker's file, cut short, deleted, or none yet beside a
 * state.json from before history.jsonl) it looks for them among the file's newest lines. Marks them as held.
 */
function missingFromHistoryFile(
  file: string,
  state: SessionStateFile,
): { fresh: History; held: Set<number> } {
  const summed = state.earlier_history?.through ?? 0;
  const unsummed = state.history.filter((entry) => entry.iteration > summed);
  const cached = appended.get(file);
  const held =
    cached && cached.stamp === fileStamp(file)
      ? cached.held
      : new Set(readTailJsonl(file, historyEntrySchema, unsummed.length).records.map((e) => e.iteration));
  const fresh = unsummed.filter((entry) => !held.has(entry.iteration));
  for (const entry of fresh) held.add(entry.iteration);
  // only unsummed entries are ever looked up: the set stays the size of state.json's history
  if (held.size > 2 * STATE_HISTORY_ENTRIES) {
    for (const iteration of held) if (iteration <= summed) held.delete(iteration);
  }
  return { fresh, held };
}

/**
 * Appends the history entries that history.jsonl lacks, then writes state.json with the newest of them and the sums
 * of the rest (session/history.ts), and remembers what it wrote. state.json is atomic but not fsynced: it is a
 * projection of the workflow's state, rewritten by every activity, so a machine crash costs at most a projection
 * that the next activity replaces. (An fsync here was a millisecond on every turn's critical path.) history.jsonl's
 * lines are on disk when the promise resolves.
 */
export function writeStateFile(sessionDir: string, state: SessionStateFile): Promise<void> {
  const paths = sessionPaths(sessionDir);
  const { fresh, held } = missingFromHistoryFile(paths.history, state);
  const durable = appendLinesDurably(
    paths.history,
    fresh.map((entry) => JSON.stringify(historyEntrySchema.parse(entry))),
  );
  const stamp = fileStamp(paths.history);
  if (stamp) remember(appended, paths.history, { stamp, held });
  const bounded = boundHistory(state.history, state.earlier_history ?? NOTHING_EARLIER, (entries) =>
    unpricedModelsOf(sessionDir, entries),
  );
  let data: SessionStateFile;
  try {
    data = writeJsonAtomic(
      paths.state,
      sessionStateFileSchema,
      { ...state, history: bounded.history, earlier_history: bounded.earlier },
      { fsync: false },
    );
  } catch (error) {
    // the fault is state.json's: reported by the throw, not again by the appended lines' fsync
    durable.catch(() => undefined);
    throw error;
  }
  const stateStamp = fileStamp(paths.state);
  if (stateStamp) {
    remember(written, paths.state, {
      stamp: stateStamp,
      history: data.history,
      projection: data.projection,
      earlier: bounded.earlier,
    });
  }
  return durable;
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
  const historyDurable = state ? writeStateFile(flush.sessionDir, state) : Promise.resolve();
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
  // a newer projection on disk was written by a later activity, which reports for itself; the summed entries are
  // in history.jsonl
  const historyGap =
    state !== null &&
    !holdsEveryEntry(state.history, Math.max(flush.heldFrom ?? 1, (state.earlier_history?.through ?? 0) + 1));
  await Promise.all([durable, historyDurable]);
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
