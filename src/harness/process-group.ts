import * as fs from 'node:fs';

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
  if (sendSignal(-pgid, 0) === 'gone') return false;
  const live = liveProcessGroupMembers(pgid);
  return live === null || live.length > 0;
}

/**
 * Process groups led by descendants of the group's members: an agent CLI may start its tools in groups of their own
 * (the real claude runs each Bash command as the leader of a new group), which a signal to the harness's group misses.
 * Only groups whose leader descends from the harness are named, never a group it merely joined. Empty without /proc.
 */
export function descendantGroups(pgid: number): number[] {
  // Group 1 holds init, from which everything descends: no harness group is ever that (terminate refuses it too).
  if (!Number.isInteger(pgid) || pgid <= 1) return [];
  // No member at all (not even a zombie): nothing descends from the group, and the scan below, a read of every
  // process's stat (milliseconds with thousands of processes, after every turn), would find nothing.
  if (sendSignal(-pgid, 0) === 'gone') return [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  const groupOf = new Map<number, number>();
  const parentOf = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(entry);
    if (!fields || fields[0] === 'Z') continue;
    const pid = Number(entry);
    const parent = Number(fields[1]);
    groupOf.set(pid, Number(fields[2]));
    parentOf.set(pid, parent);
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
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 1; pid = parentOf.get(pid)) {
    leaders.delete(groupOf.get(pid) ?? 0);
  }
  return [...leaders];
}

/** What ending a run took: the strongest signal its group needed, whether nothing of it runs any more, its cgroup's kill. */
export interface RunKill {
  action: KillAction;
  settled: boolean;
  cgroup: CgroupKill | null;
}

/**
 * SIGTERM the whole group and the groups its descendants lead, SIGKILL what is left after graceMs; then, where the run
 * has a cgroup, cgroup.kill for whatever is still in it (a process that left the group with setsid, a double fork or
 * a cleared environment), and the cgroup removed. `settled` = nothing of them still runs. The descendants' groups are
 * found before any signal: once the CLI is gone, its tools are orphans that no longer descend from it.
 */
export async function killProcessGroup(
  pgid: number,
  graceMs: number,
  cgroup: string | null = null,
): Promise<RunKill> {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  const descendants = descendantGroups(pgid);
  const end = (group: number) =>
    terminate({ group }, { graceMs, killWaitMs: 2000, isRunning: () => isProcessGroupAlive(group) });
  const [own, ...others] = await Promise.all([end(pgid), ...descendants.map(end)]);
  const contained = cgroup === null ? null : await killCgroup(cgroup, 5000);
  const action = own?.action ?? 'none';
  const settled =
    [own, ...others].every((result) => result?.settled !== false) && contained?.settled !== false;
  return { action, settled, cgroup: contained };
}
