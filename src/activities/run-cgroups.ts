import { readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { cgroup2Mount, hostContainment, isRunCgroup, runCgroupName } from '../harness/cgroup';
import { describeCgroupKill, killCgroup, type CgroupKill } from '../harness/cgroup-kill';
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

function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir); // the kernel refuses (EBUSY) while a process is in it
  } catch {
    // absent, or not empty
  }
}

/** Live (non-zombie) members of a cgroup, from its cgroup.procs (none when it is gone). */
function cgroupMembers(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => {
        const state = procStatFields(pid)?.[0];
        return state !== undefined && state !== 'Z';
      });
  } catch {
    return [];
  }
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
    for (const dir of dirs) removeIfEmpty(dir);
    return reaped;
  }
  for (const dir of dirs) {
    // Test-only: a reaper that may not signal may not write cgroup.kill either (an empty cgroup is still removed).
    const members = opts.cannotSignal ? cgroupMembers(dir) : [];
    if (members.length > 0) {
      reaped.notes.push(`cgroup.kill of ${dir} refused (EPERM)`);
      reaped.left.push(...members);
      continue;
    }
    const result = await killCgroup(dir, opts.killWaitMs ?? 2000);
    if (!result.found && dir !== run.cgroup) continue; // not this worker's cgroup for the run
    reaped.kill = result;
    reaped.notes.push(describeCgroupKill(result));
    reaped.left.push(...cgroupMembers(dir));
  }
  return reaped;
}
