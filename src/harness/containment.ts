import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

import { pollUntil } from '../process/poll-until';
import { hostContainment, type Containment } from './cgroup';
import { removeCgroup } from './cgroup-kill';
import { probeTurnNamespaces } from './namespaces';

/** What a host gives, with, where it gives cgroups, whether the runs also get namespaces of their own (or why not). */
export type ProbedContainment =
  | Extract<Containment, { kind: 'process-group' }>
  | (Extract<Containment, { kind: 'cgroup' }> & {
      namespaces: { kind: 'mount' } | { kind: 'none'; reason: string };
    });

/**
 * What containment the harness runs of a worker get on this host, proven the way a run uses it: a throwaway cgroup is
 * made under the worker's base and a throwaway shell moves itself into it, then the cgroup is removed; a throwaway
 * shell is started in a mount namespace made as a launcher makes it for its runs. `pid` is the worker's (its cgroup is where
 * the runs' cgroups go); without one, this process's.
 */
export async function probeContainment(pid: number | null): Promise<ProbedContainment> {
  const found = hostContainment(pid ?? 'self');
  if (found.kind !== 'cgroup') return found;
  const probe = join(found.base, `probe-${process.pid}-${Date.now().toString(36)}`);
  try {
    await mkdir(probe);
  } catch (error) {
    return {
      kind: 'process-group',
      reason: `cannot create a cgroup in ${found.base}: ${(error as Error).message}`,
    };
  }
  try {
    const joined = await execa('/bin/sh', ['-c', 'echo $$ > "$1/cgroup.procs"', 'probe', probe], {
      reject: false,
    });
    if (joined.exitCode !== 0) {
      const why = joined.stderr.trim().split('\n').at(-1) || `exit ${joined.exitCode}`;
      return {
        kind: 'process-group',
        reason: `a process cannot move into a cgroup under ${found.base}: ${why}`,
      };
    }
    const namespaces = probeTurnNamespaces();
    return {
      ...found,
      namespaces: namespaces.kind === 'namespaces' ? { kind: 'mount' } : namespaces,
    };
  } finally {
    // The shell is gone (execa waited for it): the cgroup empties as it exits.
    // (any other failure than EBUSY ends the attempts: nothing more to wait for)
    await pollUntil(() => removeCgroup(probe).catch(() => true), { timeoutMs: 2000, intervalMs: 20 });
  }
}

/** The line `the-loop status` prints. */
export function describeContainment(containment: ProbedContainment): string {
  if (containment.kind !== 'cgroup') return `containment: process group + marker scan: ${containment.reason}`;
  const namespaces =
    containment.namespaces.kind === 'mount'
      ? 'in a mount namespace without cgroup2, so that a root harness cannot leave it'
      : `without a mount namespace of its own (${containment.namespaces.reason}), so that a root harness can leave it`;
  return `containment: cgroup v2 at ${containment.base} (a cgroup per turn, ${namespaces}; cgroup.kill ends every process a turn started)`;
}
