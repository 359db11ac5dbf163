import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroup2Mount, hostContainment, isRunCgroup, runCgroupName } from '../harness/cgroup';
import {
  cgroupProcs,
  describeCgroupKill,
  killCgroup,
  removeCgroup,
  type CgroupKill,
} from '../harness/cgroup-kill';
import { procStatFields } from '../harness/process-group';

/**
 * The cgroups a run may have on this host: the one its records name, when it looks like a run's cgroup (a record is
 * a file on disk, never trusted to name any other cgroup), and the one its directory names under this worker's base
 * (a worker that died between the spawn and process.json recorded none).
 */
export function runCgroups(outputDir: string, recorded: string | null): string[] {
  const found: string[] = [];
  try {
    const mount = cgroup2Mount(readFileSync('/proc/self/mountinfo', 'utf8'));
    if (recorded !== null && mount && isRunCgroup(recorded, outputDir, mount.mountPoint))
      found.push(recorded);
  } catch {
    // no /proc: no cgroup either
  }
  const host = hostContainment();
  if (host.kind === 'cgroup') {
    const own = join(host.base, runCgroupName(outputDir));
    if (!found.includes(own)) found.push(own);
  }
  return found;
}

/** Live (non-zombie) members of a cgroup (none when it is gone or cannot be read). */
async function liveCgroupMembers(dir: string): Promise<number[]> {
  const procs = await cgroupProcs(dir).catch(() => null);
  return (procs ?? []).filter((pid) => {
    const state = procStatFields(pid)?.[0];
    return state !== undefined && state !== 'Z';
  });
}

export interface RunCgroupsReaped {
  /** What cgroup.kill did to the run's cgroup, when it had one here. */
  kill: CgroupKill | null;
  /** For the report's detail; empty when the run had no cgroup on this host. */
  notes: string[];
  /** Live processes still in it. */
  left: number[];
}

/**
 * The cgroup part of reaping an earlier attempt's run, after its process group: cgroup.kill for whatever left the
 * group (setsid, a double fork, env -i), then rmdir. Another host's run is not this worker's to end: its cgroup is
 * only removed when it is on this machine (two hosts on one machine) and empty.
 */
export async function reapRunCgroups(
  run: { outputDir: string; cgroup: string | null; host: string | null },
  opts: { hostId: string; killWaitMs?: number; cannotSignal?: boolean },
): Promise<RunCgroupsReaped> {
  const reaped: RunCgroupsReaped = { kill: null, notes: [], left: [] };
  const dirs = runCgroups(run.outputDir, run.cgroup);
  if (run.host !== null && run.host !== opts.hostId) {
    // the kernel refuses while a process is in it
    for (const dir of dirs) await removeCgroup(dir).catch(() => false);
    return reaped;
  }
  for (const dir of dirs) {
    // Test-only: a reaper that may not signal may not write cgroup.kill either (an empty cgroup is still removed).
    const members = opts.cannotSignal ? await liveCgroupMembers(dir) : [];
    if (members.length > 0) {
      reaped.notes.push(`cgroup.kill of ${dir} refused (EPERM)`);
      reaped.left.push(...members);
      continue;
    }
    const result = await killCgroup(dir, opts.killWaitMs ?? 2000);
    if (!result.found && dir !== run.cgroup) continue; // not this worker's cgroup for the run
    reaped.kill = result;
    reaped.notes.push(describeCgroupKill(result));
    reaped.left.push(...(await liveCgroupMembers(dir)));
  }
  return reaped;
}
