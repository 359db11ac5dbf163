import { readdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Containment } from './cgroup';

/**
 * How old an empty run cgroup must be to be taken for a leftover: far longer than any spawn takes to join the cgroup
 * its launcher made for it (a spawn joins within milliseconds, and a run's members keep its cgroup populated).
 */
const LEFTOVER_AFTER_MS = 10 * 60_000;

/**
 * Removes the run cgroups that nobody removed: a run's cgroup goes at the end of its turn, or when recovery reaps it,
 * but a worker stopped for good with turns in flight (its sessions terminated, a test's or a benchmark's scratch
 * worker) leaves them, empty, for ever; thousands of them accumulated on a machine that ran the suite and the
 * benchmarks. Run once by each launcher when it starts, off the spawn path. A cgroup still in use is never removed:
 * rmdir refuses a populated one, and one made in the last ten minutes is not touched. Returns how many went.
 */
export async function sweepLeftoverRunCgroups(containment: Containment, now = Date.now()): Promise<number> {
  if (containment.kind !== 'cgroup') return 0;
  let removed = 0;
  for (const entry of await readdir(containment.base, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const dir = join(containment.base, entry.name);
    try {
      if ((await stat(dir)).mtimeMs > now - LEFTOVER_AFTER_MS) continue;
      await rmdir(dir);
      removed += 1;
    } catch {
      // populated (EBUSY), removed meanwhile (ENOENT), or not ours to remove: left as it is
    }
  }
  return removed;
}
