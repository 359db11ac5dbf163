import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { isErrno } from '../errors';
import { fsyncDirAsync, namingFile } from '../session/atomic';

/**
 * Fencing of stale attempts. A turn's attempts can overlap: a worker that was stopped (SIGSTOP, a long GC pause, a
 * frozen VM) for longer than the heartbeat timeout wakes up after a retry has taken the turn over. Every attempt
 * therefore writes what decides the turn (result.json, the handoff record, goal_check.json, salvage.json, the run it
 * starts) through its lease: a directory of its own under the iteration's `attempts/`, where each file is staged and
 * then renamed into place. A newer attempt first creates its own lease and moves every older one aside
 * (`<name>.superseded`): from then on the older attempt's staging finds no directory and its renames find no file.
 * So each of its writes either landed before the takeover, where the newer attempt reads it, or never lands.
 * An attempt that finds a newer lease than its own is stale from the start and writes nothing.
 */

export const ATTEMPTS_DIR = 'attempts';
const SUPERSEDED = '.superseded';

/** Thrown by every write of an attempt that a newer attempt has taken the turn from. */
export class AttemptSuperseded extends Error {
  constructor(readonly lease: string) {
    super(`${lease} was superseded by a newer attempt of the same turn; it writes nothing more`);
    this.name = 'AttemptSuperseded';
  }
}

export interface LeasedWrite {
  /** A file directly in the iteration's directory. */
  file: string;
  data: string;
  /** Default true: the file must outlive the machine, not only the worker. */
  fsync?: boolean;
}

export interface AttemptLease {
  /** The lease's directory name (`attempt-2.<hex>`). */
  name: string;
  /** Still this attempt's turn? (A hint for an early exit: only write() decides.) */
  held(): boolean;
  /**
   * The files, written in this order, if the lease is still held; else AttemptSuperseded and nothing written. The
   * first rename is the commit point: a takeover after it completes the rest (see takeLease).
   */
  write(files: readonly LeasedWrite[]): Promise<void>;
}

/**
 * runIteration's attempts rank by their dispatch, then by their attempt number: a turn that a fault blocked is
 * dispatched again, as a new activity whose attempts count from 1, after the resume (IterationRequest.dispatch). The
 * salvage of a stopped session outranks them all.
 */
export type LeaseRank = { dispatch: number; attempt: number } | 'stop';

/** The first dispatch keeps the name leases had before turns were dispatched again (`attempt-2.<hex>`). */
function leaseName(rank: LeaseRank): string {
  const tag = randomBytes(4).toString('hex');
  if (rank === 'stop') return `stop.${tag}`;
  const attempt = `attempt-${rank.attempt}.${tag}`;
  return rank.dispatch > 1 ? `dispatch-${rank.dispatch}.${attempt}` : attempt;
}

/** [dispatch, attempt] of a lease's name; the stop's ranks above every other; null for a name that is no lease. */
function rankOf(name: string): [number, number] | null {
  if (name.startsWith('stop.')) return [Number.POSITIVE_INFINITY, 0];
  const match = /^(?:dispatch-(\d+)\.)?attempt-(\d+)\./.exec(name);
  return match ? [Number(match[1] ?? 1), Number(match[2])] : null;
}

function outranks(a: [number, number], b: [number, number]): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** Staged files are named `<order>-<target name>`; the order keeps a takeover's completion in the writer's order. */
function stagedName(order: number, file: string): string {
  return `${String(order).padStart(3, '0')}-${basename(file)}`;
}

/**
 * A writer killed (or stopped) between the renames of one write left the rest of it staged in its lease. The
 * first rename had landed (its staged file is gone), so the write had committed: the rest is put in place too.
 * A write that had not reached its first rename is dropped.
 */
function completeInterruptedWrite(iterationDir: string, lease: string): void {
  let staged: string[];
  try {
    staged = fs.readdirSync(lease).sort();
  } catch {
    return;
  }
  const tmp = staged.filter((name) => name.endsWith('.tmp'));
  for (const name of tmp) fs.rmSync(join(lease, name), { force: true });
  const done = staged.filter((name) => !name.endsWith('.tmp'));
  if (done.length === 0 || done[0]?.startsWith('000-')) {
    for (const name of done) fs.rmSync(join(lease, name), { force: true });
    return;
  }
  for (const name of done) fs.renameSync(join(lease, name), join(iterationDir, name.slice(4)));
}

/**
 * Takes the turn's lease for this attempt: creates its lease, then moves every older lease aside (completing a
 * write it had committed). Throws AttemptSuperseded when a newer attempt already holds or held the turn.
 */
export function takeLease(iterationDir: string, rank: LeaseRank): AttemptLease {
  const root = join(iterationDir, ATTEMPTS_DIR);
  fs.mkdirSync(root, { recursive: true });
  const name = leaseName(rank);
  const own = join(root, name);
  fs.mkdirSync(own);
  const myRank = rankOf(name) ?? [0, 0];
  // Both sides create their lease before they look: of two overlapping attempts, at least one sees the other.
  for (const other of fs.readdirSync(root)) {
    if (other === name) continue;
    const theirs = rankOf(other);
    if (theirs !== null && outranks(theirs, myRank)) {
      fs.rmSync(own, { recursive: true, force: true });
      throw new AttemptSuperseded(name);
    }
  }
  for (const other of fs.readdirSync(root)) {
    if (other === name || other.endsWith(SUPERSEDED) || rankOf(other) === null) continue;
    const moved = join(root, `${other}${SUPERSEDED}`);
    try {
      fs.renameSync(join(root, other), moved);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) continue; // moved aside by a third attempt
      throw error;
    }
    completeInterruptedWrite(iterationDir, moved);
  }
  return {
    name,
    held: () => fs.existsSync(own),
    write: (files) => writeUnderLease(own, name, iterationDir, files),
  };
}

async function writeUnderLease(
  own: string,
  name: string,
  iterationDir: string,
  files: readonly LeasedWrite[],
): Promise<void> {
  const staged: { tmp: string; file: string; durable: boolean }[] = [];
  try {
    for (const [order, write] of files.entries()) {
      if (join(iterationDir, basename(write.file)) !== write.file) {
        throw new Error(`${write.file}: a leased write must be a file of ${iterationDir}`);
      }
      const tmp = join(own, `${stagedName(order, write.file)}.tmp`);
      const durable = write.fsync ?? true;
      // 'wx': the lease directory is never created again once it was moved aside.
      const handle = await fs.promises.open(tmp, 'wx', 0o644);
      staged.push({ tmp, file: write.file, durable });
      try {
        await handle.writeFile(write.data);
        if (durable) await handle.sync();
      } catch (error) {
        throw namingFile(error, write.file);
      } finally {
        await handle.close();
      }
    }
    // Named without .tmp once whole: a takeover completes only files that were written whole.
    for (const [order, s] of staged.entries()) {
      const ready = join(own, stagedName(order, s.file));
      fs.renameSync(s.tmp, ready);
      s.tmp = ready;
    }
  } catch (error) {
    for (const s of staged) fs.rmSync(s.tmp, { force: true });
    if (isErrno(error, 'ENOENT') && !fs.existsSync(own)) throw new AttemptSuperseded(name);
    throw error;
  }
  for (const [i, s] of staged.entries()) {
    try {
      fs.renameSync(s.tmp, s.file);
    } catch (error) {
      if (isErrno(error, 'ENOENT') && !fs.existsSync(own)) {
        // Moved aside mid-write: after the first rename the takeover completes the rest; before it nothing lands.
        throw new AttemptSuperseded(name);
      }
      for (const left of staged.slice(i)) fs.rmSync(left.tmp, { force: true });
      throw error;
    }
  }
  if (staged.some((s) => s.durable)) await fsyncDirAsync(iterationDir);
}
