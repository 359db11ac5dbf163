import * as fs from 'node:fs';

import { isErrno } from '../errors';
import { terminate } from '../process/terminate';

export type KillAction = 'none' | 'sigterm' | 'sigkill';

export interface ProcessGroupMember {
  pid: number;
  state: string;
}

/**
 * The fields of /proc/<pid>/stat after the command name, so that fields[0] is the state, [1] the parent pid, [2]
 * the process group, [11]/[12] user/system time and [19] the start time (proc(5) numbers them from 3). The command
 * name may contain spaces and parentheses: the fields start after its last ')'. null when the process is gone.
 */
export function procStatFields(pid: number | string): string[] | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * Members of a process group read from /proc (null where /proc is unavailable). Zombies are listed with
 * state 'Z': an orphan whose reaper never calls wait() (some container inits) stays a zombie forever.
 */
export function processGroupMembers(pgid: number): ProcessGroupMember[] | null {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  const members: ProcessGroupMember[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(entry);
    if (!fields) continue; // exited while we looked
    if (Number(fields[2]) === pgid) members.push({ pid: Number(entry), state: fields[0] ?? '?' });
  }
  return members;
}

/** Pids of the group's members that can still do work (zombies excluded); null where /proc is unavailable. */
export function liveProcessGroupMembers(pgid: number): number[] | null {
  const members = processGroupMembers(pgid);
  return members === null ? null : members.filter((m) => m.state !== 'Z').map((m) => m.pid);
}

/**
 * `process.kill(-pgid, 0)`, except that a group made only of zombies counts as gone: kill(2) succeeds
 * on zombies, and an unreaped orphan would otherwise look like a live worker forever.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    if (isErrno(err, 'ESRCH')) return false;
    if (isErrno(err, 'EPERM')) return true;
    throw err;
  }
  const live = liveProcessGroupMembers(pgid);
  return live === null || live.length > 0;
}

/** SIGTERM the whole group, SIGKILL what is left after graceMs; `settled` = nothing of the group still runs. */
export async function killProcessGroup(
  pgid: number,
  graceMs: number,
): Promise<{ action: KillAction; settled: boolean }> {
  const { action, settled } = await terminate(
    { group: pgid },
    { graceMs, killWaitMs: 2000, isRunning: () => isProcessGroupAlive(pgid) },
  );
  return { action, settled };
}
