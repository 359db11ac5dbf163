import * as fs from 'node:fs';
import { join } from 'node:path';

import { sendSignal, terminate } from '../process/terminate';
import { killCgroup, type CgroupKill } from './cgroup-kill';

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
 * The processes a scan for group `pgid` reads: its leader and the members of its run's sealed cgroup (every process
 * the run started is in it, and cannot leave it: namespaces.ts; the leader, its supervisor, is there once it has
 * joined), else every process in /proc; null where /proc is unavailable. With thousands of live turns, reading every
 * process is tens of milliseconds of the worker's event loop, and a kill looks every 25 ms.
 */
function scannedPids(pgid: number, sealedCgroup: string | null): string[] | null {
  if (sealedCgroup !== null) {
    try {
      const members = fs.readFileSync(join(sealedCgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
      return members.includes(String(pgid)) ? members : [String(pgid), ...members];
    } catch {
      // gone (a supervisor that could not join it removes it): the run is wherever it is
    }
  }
  try {
    return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
}

/**
 * Members of a process group read from /proc (null where /proc is unavailable), among its run's sealed cgroup's
 * members when it has one. Zombies are listed with state 'Z': an orphan whose reaper never calls wait() (some
 * container inits) stays a zombie forever. (Of a sealed cgroup's, only the leader can be: a process leaves its cgroup
 * when it exits.)
 */
export function processGroupMembers(
  pgid: number,
  sealedCgroup: string | null = null,
): ProcessGroupMember[] | null {
  const pids = scannedPids(pgid, sealedCgroup);
  if (pids === null) return null;
  const members: ProcessGroupMember[] = [];
  for (const pid of pids) {
    const fields = procStatFields(pid);
    if (!fields) continue; // exited while we looked
    if (Number(fields[2]) === pgid) members.push({ pid: Number(pid), state: fields[0] ?? '?' });
  }
  return members;
}

/** Pids of the group's members that can still do work (zombies excluded); null where /proc is unavailable. */
export function liveProcessGroupMembers(pgid: number, sealedCgroup: string | null = null): number[] | null {
  const members = processGroupMembers(pgid, sealedCgroup);
  return members === null ? null : members.filter((m) => m.state !== 'Z').map((m) => m.pid);
}

/**
 * `process.kill(-pgid, 0)`, except that a group made only of zombies counts as gone: kill(2) succeeds
 * on zombies, and an unreaped orphan would otherwise look like a live worker forever.
 */
export function isProcessGroupAlive(pgid: number, sealedCgroup: string | null = null): boolean {
  if (sendSignal(-pgid, 0) === 'gone') return false;
  const live = liveProcessGroupMembers(pgid, sealedCgroup);
  return live === null || live.length > 0;
}

/**
 * Process groups led by descendants of the group's members: an agent CLI may start its tools in groups of their own
 * (the real claude runs each Bash command as the leader of a new group), which a signal to the harness's group misses.
 * Only groups whose leader descends from the harness are named, never a group it merely joined. Empty without /proc.
 */
export function descendantGroups(pgid: number, sealedCgroup: string | null = null): number[] {
  // Group 1 holds init, from which everything descends: no harness group is ever that (terminate refuses it too).
  if (!Number.isInteger(pgid) || pgid <= 1) return [];
  // No member at all (not even a zombie): nothing descends from the group, and the scan below would find nothing.
  if (sendSignal(-pgid, 0) === 'gone') return [];
  const children = new Map<number, number[]>();
  const groupOf = new Map<number, number>();
  for (const entry of scannedPids(pgid, sealedCgroup) ?? []) {
    const fields = procStatFields(entry);
    if (!fields || fields[0] === 'Z') continue;
    const pid = Number(entry);
    const parent = Number(fields[1]);
    groupOf.set(pid, Number(fields[2]));
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const queue = [...groupOf].filter(([, group]) => group === pgid).map(([pid]) => pid);
  const leaders = new Set<number>();
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i] ?? 0) ?? []) {
      queue.push(child);
      if (groupOf.get(child) === child && child !== pgid) leaders.add(child);
    }
  }
  // Never the group of this process or of one of its ancestors, whatever the tree looked like.
  for (let pid = process.pid; pid > 1;) {
    const fields = procStatFields(pid);
    if (!fields) break;
    leaders.delete(Number(fields[2]));
    pid = Number(fields[1]);
  }
  return [...leaders];
}

/** What ending a run took: the strongest signal its group needed, whether nothing of it runs any more, its cgroup's kill. */
export interface RunKill {
  action: KillAction;
  settled: boolean;
  cgroup: CgroupKill | null;
}

/** A run's cgroup v2 directory; sealed when the run cannot leave it (its mount namespace shows no cgroup2). */
export interface RunCgroup {
  path: string;
  sealed: boolean;
}

/**
 * SIGTERM the whole group and the groups its descendants lead, SIGKILL what is left after graceMs; then, where the run
 * has a cgroup, cgroup.kill for whatever is still in it (a process that left the group with setsid, a double fork or
 * a cleared environment), and the cgroup removed. `settled` = nothing of them still runs. The descendants' groups are
 * found before any signal: once the CLI is gone, its tools are orphans that no longer descend from it. A sealed
 * cgroup holds all of them, so they are looked for among its members only.
 */
export async function killProcessGroup(
  pgid: number,
  graceMs: number,
  cgroup: RunCgroup | null = null,
): Promise<RunKill> {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  const scope = cgroup?.sealed === true ? cgroup.path : null;
  const descendants = descendantGroups(pgid, scope);
  const end = (group: number) =>
    terminate({ group }, { graceMs, killWaitMs: 2000, isRunning: () => isProcessGroupAlive(group, scope) });
  const [own, ...others] = await Promise.all([end(pgid), ...descendants.map(end)]);
  const contained = cgroup === null ? null : await killCgroup(cgroup.path, 5000);
  const action = own?.action ?? 'none';
  const settled =
    [own, ...others].every((result) => result?.settled !== false) && contained?.settled !== false;
  return { action, settled, cgroup: contained };
}
