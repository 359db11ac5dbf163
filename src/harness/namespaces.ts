/**
 * A turn's own cgroup and mount namespaces. A cgroup alone does not hold a harness running as root: root may write
 * its pid into any cgroup.procs it can reach, the cgroup2 root's included, and so leave the turn's cgroup (which is
 * what cgroup.kill ends). So, where the host allows it, the harness is started through `unshare --cgroup --mount
 * --propagation private` once its supervisor has joined the turn's cgroup: the new cgroup namespace is rooted at that
 * cgroup, and in the new (private: nothing propagates to the host) mount namespace the host's cgroup2 mount is
 * replaced by a fresh one, whose root is then the turn's cgroup. The host's root cgroup is not reachable by path from
 * inside. The harness then runs without CAP_SYS_ADMIN, CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (setpriv: bounding and
 * inheritable sets, so no exec gets them back), which are what could undo that: unmounting the fresh mount,
 * entering the host's namespaces (setns), reaching the host's mount through /proc/<pid>/root, or opening the root
 * cgroup by a file handle (open_by_handle_at). The namespace shell execs: the turn still starts only the supervisor
 * and the harness.
 *
 * cgroup v1 hierarchies are left as they are: a root harness can still move itself in those, which changes its v1
 * accounting but not its cgroup v2 membership, which is what ends it.
 *
 * Synchronous and free of imports beyond Node's and this directory's: the launcher loads it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { cgroup2Mount } from './cgroup';
import { findExecutable } from './find-executable';

export type TurnNamespaces =
  /** `wrap` goes before the harness's command and arguments. */
  { kind: 'namespaces'; wrap: string[] } | { kind: 'none'; reason: string };

/** Capabilities that could undo the namespaces, dropped for good before the harness starts. */
const DROPPED_CAPS = '-sys_admin,-sys_ptrace,-dac_read_search';

/**
 * Runs inside the new namespaces: $1 the cgroup2 mount point, $2-$4 umount, mount and setpriv, then the harness.
 * The host's mount is removed rather than mounted over (the kernel refuses the same file system twice on one point).
 */
const ENTER_SCRIPT = `mp=$1 umount_bin=$2 mount_bin=$3 setpriv_bin=$4
shift 4
"$umount_bin" "$mp" && "$mount_bin" -t cgroup2 cgroup2 "$mp" || exit 125
exec "$setpriv_bin" --bounding-set ${DROPPED_CAPS} --inh-caps ${DROPPED_CAPS} -- "$@"`;

/** Where util-linux lives, should the launcher's PATH lack it. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The wrapper for this host's cgroup2 mount point, or why there is none (no tool, or no cgroup2 at all). */
function wrapper(): TurnNamespaces {
  let mountinfo: string;
  try {
    mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch (error) {
    return { kind: 'none', reason: `cannot read /proc/self/mountinfo: ${(error as Error).message}` };
  }
  const mount = cgroup2Mount(mountinfo);
  if (!mount) return { kind: 'none', reason: 'no cgroup2 file system is mounted' };
  const env = { PATH: `${process.env.PATH ?? ''}:${SYSTEM_PATH}` };
  const names = ['unshare', 'umount', 'mount', 'setpriv'];
  const files = names.map((tool) => findExecutable(tool, env));
  const missing = names.filter((_tool, i) => files[i] === null);
  if (missing.length > 0) return { kind: 'none', reason: `${missing.join(', ')} not found` };
  const [unshare = '', ...enterTools] = files.filter((file): file is string => file !== null);
  const enter = ['/bin/sh', '-c', ENTER_SCRIPT, 'the-loop-namespaces', mount.mountPoint, ...enterTools];
  return {
    kind: 'namespaces',
    wrap: [unshare, '--cgroup', '--mount', '--propagation', 'private', '--', ...enter],
  };
}

/** Proves the wrapper the way a run uses it (a throwaway shell started through it), saying why it fails. */
export function probeTurnNamespaces(): TurnNamespaces {
  const found = wrapper();
  if (found.kind !== 'namespaces') return found;
  const [file = '', ...args] = found.wrap;
  const probe = spawnSync(file, [...args, '/bin/sh', '-c', 'exit 0'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status === 0) return found;
  const why = probe.error?.message ?? probe.stderr.trim().split('\n').at(-1) ?? `exit ${probe.status}`;
  return { kind: 'none', reason: `cannot start a process in namespaces of its own: ${why}` };
}

let launcherNamespaces: TurnNamespaces | null = null;

/** The launcher's answer, probed once: the host does not change while it runs. */
export function turnNamespaces(): TurnNamespaces {
  launcherNamespaces ??= probeTurnNamespaces();
  return launcherNamespaces;
}
