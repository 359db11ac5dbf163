/**
 * Where a harness run's cgroup v2 goes: `<cgroup2 mount><this process's cgroup>/the-loop/<run>`. A process that
 * leaves its process group (setsid, a double fork) or clears its environment (env -i) still cannot leave its cgroup,
 * so `cgroup.kill` on the run's cgroup ends every descendant. Where the host allows no such cgroup (no cgroup2
 * mounted, no cgroup.kill before Linux 5.14, a tree this user may not write), the reason is kept and runs fall back
 * to their process group plus the scan for their marker variable.
 *
 * Synchronous and free of imports beyond Node's: the launcher process loads it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The directory, under the worker's own cgroup, that holds one cgroup per harness run. */
export const CGROUP_PARENT = 'the-loop';

export type Containment =
  | { kind: 'cgroup'; /** The directory holding the runs' cgroups. */ base: string }
  | { kind: 'process-group'; reason: string };

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The cgroup2 mount in a /proc/<pid>/mountinfo text: where it is mounted, and which cgroup its root is. */
export function cgroup2Mount(mountinfo: string): { mountPoint: string; root: string } | null {
  for (const line of mountinfo.split('\n')) {
    const [mount, source] = line.split(' - ');
    if (source?.split(' ')[0] !== 'cgroup2') continue;
    const fields = mount?.split(' ') ?? [];
    const root = fields[3];
    const mountPoint = fields[4];
    if (root && mountPoint)
      return { root: unescapeMountField(root), mountPoint: unescapeMountField(mountPoint) };
  }
  return null;
}

/** The cgroup v2 path of a process from its /proc/<pid>/cgroup text (the `0::<path>` line). */
export function unifiedCgroupPath(procCgroup: string): string | null {
  const line = procCgroup.split('\n').find((l) => l.startsWith('0::'));
  return line === undefined ? null : line.slice(3);
}

/** The base directory for the runs' cgroups, from the two /proc texts of the process they descend from. */
export function cgroupBase(mountinfo: string, procCgroup: string): Containment {
  const mount = cgroup2Mount(mountinfo);
  if (!mount) return { kind: 'process-group', reason: 'no cgroup2 file system is mounted' };
  const own = unifiedCgroupPath(procCgroup);
  if (own === null) return { kind: 'process-group', reason: 'this process has no cgroup v2 membership' };
  if (own.endsWith(' (deleted)'))
    return { kind: 'process-group', reason: `this process's cgroup ${own} was removed` };
  const root = mount.root === '/' ? '' : mount.root;
  if (root && own !== root && !own.startsWith(`${root}/`)) {
    return {
      kind: 'process-group',
      reason: `this process's cgroup ${own} is outside the mounted cgroup2 tree (${mount.root} at ${mount.mountPoint})`,
    };
  }
  return { kind: 'cgroup', base: path.join(mount.mountPoint, own.slice(root.length), CGROUP_PARENT) };
}

function reasonOf(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  return err.code ?? err.message;
}

/**
 * What a process gets: its base created (mkdir -p) and checked for cgroup.kill, and its own cgroup's cgroup.procs
 * writable (moving a process out of it into a run's cgroup needs that). `pid` names the process whose cgroup the
 * runs descend from ('self' in the launcher; the worker's pid for `the-loop status`).
 */
export function hostContainment(pid: number | 'self' = 'self'): Containment {
  let found: Containment;
  try {
    found = cgroupBase(
      fs.readFileSync(`/proc/${pid}/mountinfo`, 'utf8'),
      fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8'),
    );
  } catch (error) {
    return { kind: 'process-group', reason: `cannot read /proc/${pid}: ${reasonOf(error)}` };
  }
  if (found.kind !== 'cgroup') return found;
  const { base } = found;
  try {
    fs.mkdirSync(base, { recursive: true });
  } catch (error) {
    return { kind: 'process-group', reason: `cannot create ${base}: ${reasonOf(error)}` };
  }
  if (!fs.existsSync(path.join(base, 'cgroup.kill'))) {
    return { kind: 'process-group', reason: `${base} has no cgroup.kill (it needs Linux 5.14 or later)` };
  }
  try {
    fs.accessSync(path.join(path.dirname(base), 'cgroup.procs'), fs.constants.W_OK);
  } catch (error) {
    return {
      kind: 'process-group',
      reason: `cannot move processes out of ${path.dirname(base)} (cgroup.procs: ${reasonOf(error)}; a systemd unit needs Delegate=yes)`,
    };
  }
  return found;
}

/**
 * The name of a run's cgroup: its run id and a digest of its output directory, so that it is unique on the host and
 * a later attempt can name it again from the run's directory alone.
 */
export function runCgroupName(outputDir: string): string {
  const digest = createHash('sha256').update(path.resolve(outputDir)).digest('hex').slice(0, 12);
  return `${path.basename(outputDir)}-${digest}`;
}

/** Whether `dir` is what a run's cgroup looks like: `<…>/the-loop/<runCgroupName(outputDir)>`, on cgroup2. */
export function isRunCgroup(dir: string, outputDir: string, mountPoint: string): boolean {
  const resolved = path.resolve(dir);
  return (
    resolved.startsWith(`${path.resolve(mountPoint)}/`) &&
    path.basename(resolved) === runCgroupName(outputDir) &&
    path.basename(path.dirname(resolved)) === CGROUP_PARENT
  );
}

let launcherContainment: Containment | null = null;

/** This process's containment, looked up once (and again after a run's cgroup could not be made). */
export function launcherCgroups(): Containment {
  return (launcherContainment ??= hostContainment('self'));
}

/**
 * Creates the cgroup of a run whose output goes to `outputDir`, under this process's base (looked up once). null when
 * the host gives no cgroup (`hostContainment()` says why) or this one could not be made.
 */
export function createRunCgroup(outputDir: string): string | null {
  const containment = launcherCgroups();
  if (containment.kind !== 'cgroup') return null;
  const dir = path.join(containment.base, runCgroupName(outputDir));
  try {
    fs.mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return dir;
    launcherContainment = null; // the base may have been removed: the next run looks again
    return null;
  }
  return dir;
}
