import { readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { isErrno } from '../errors';
import { pollUntil } from '../process/poll-until';

export interface CgroupKill {
  /** The run's cgroup directory. */
  path: string;
  /** The directory was there (a supervisor that could not join it removed it). */
  found: boolean;
  /** Processes that cgroup.kill ended (0 when the cgroup was already empty). */
  killed: number;
  /** Nothing of the cgroup runs any more (cgroup.events says `populated 0`). */
  settled: boolean;
  /** The directory is gone. */
  removed: boolean;
}

/** Members of the cgroup (its cgroup.procs); null when the directory is gone. Exiting processes leave it at once. */
export async function cgroupProcs(dir: string): Promise<number[] | null> {
  try {
    const text = await readFile(join(dir, 'cgroup.procs'), 'utf8');
    return text.split('\n').filter(Boolean).map(Number);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw error;
  }
}

async function populated(dir: string): Promise<boolean> {
  try {
    return /^populated 1$/m.test(await readFile(join(dir, 'cgroup.events'), 'utf8'));
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

/** rmdir of a cgroup: true once it is gone, false while the kernel refuses (a process is still in it). */
export async function removeCgroup(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return true;
    if (isErrno(error, 'EBUSY')) return false; // still populated, or (briefly) a child cgroup
    throw error;
  }
}

/**
 * Ends every process of a run's cgroup, wherever it went (a new session, a cleared environment, a double fork), and
 * removes the cgroup: `1` to cgroup.kill (SIGKILL to all of it, the kernel sees to races with fork), then wait until
 * `populated 0`, then rmdir. Waits at most `waitMs` for each; `settled` says whether it got there.
 */
export async function killCgroup(dir: string, waitMs: number): Promise<CgroupKill> {
  // How most turns end: everything the harness started is gone with it, and the empty cgroup goes at the first try
  // (the kernel refuses while anything is in it), without the reads below.
  try {
    await rmdir(dir);
    return { path: dir, found: true, killed: 0, settled: true, removed: true };
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { path: dir, found: false, killed: 0, settled: true, removed: true };
    // busy (a member, a child cgroup); not a cgroup at all (a plain directory with files): looked at below
    if (!isErrno(error, 'EBUSY') && !isErrno(error, 'ENOTEMPTY')) throw error;
  }
  const before = await cgroupProcs(dir);
  if (before === null) return { path: dir, found: false, killed: 0, settled: true, removed: true };
  if (before.length > 0 || (await populated(dir))) await writeFile(join(dir, 'cgroup.kill'), '1');
  const intervalMs = 25;
  const settled =
    (await pollUntil(async () => !(await populated(dir)), { timeoutMs: waitMs, intervalMs })) === true;
  const gone =
    settled && (await pollUntil(() => removeCgroup(dir), { timeoutMs: waitMs, intervalMs })) === true;
  return { path: dir, found: true, killed: before.length, settled, removed: gone };
}

/** One line for a report: what cgroup.kill did. */
export function describeCgroupKill(result: CgroupKill): string {
  if (!result.found) return `cgroup ${result.path} absent (the run never joined it)`;
  const what =
    result.killed > 0
      ? `cgroup.kill ended ${result.killed} process(es) of ${result.path}`
      : `cgroup ${result.path} empty`;
  if (!result.settled) return `${what}; some still run`;
  return result.removed ? `${what}; removed` : `${what}; not removed (busy)`;
}
