/**
 * A mount namespace without the cgroup2 file system, which the harnesses of a launcher enter. A cgroup alone does not
 * hold a harness running as root: root may write its pid into any cgroup.procs it can reach, the cgroup2 root's
 * included, and so leave the turn's cgroup (which is what cgroup.kill ends). So, where the host allows it, the
 * launcher makes, once, a mount namespace (a slave of the host's: mounts made on the host later still appear in it,
 * nothing made in it reaches the host) from which the host's cgroup2 mount is removed, and keeps it by an open file.
 * Each harness is started through `nsenter` into that namespace, once its supervisor has joined the turn's cgroup,
 * and then runs without CAP_SYS_ADMIN, CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (setpriv: bounding and inheritable
 * sets, so no exec gets them back), which are what could undo that: mounting cgroup2 again, entering the host's
 * namespaces (setns), reaching the host's mount through /proc/<pid>/root, or opening the root cgroup by a file handle
 * (open_by_handle_at). No cgroup file system is reachable from inside, so no cgroup.procs is. nsenter and setpriv exec
 * one another in the harness's process: the turn still starts only the supervisor and the harness, and the mount
 * table is edited once per launcher, not once per turn.
 *
 * cgroup v1 hierarchies are left as they are: a root harness can still move itself in those, which changes its v1
 * accounting but not its cgroup v2 membership, which is what ends it.
 *
 * Synchronous and free of imports beyond Node's and this directory's: the launcher loads it.
 */
import { spawnSync, type IOType, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import { cgroup2Mount } from './cgroup';
import { findExecutable } from './find-executable';

/** Whether harnesses get the namespace, or why not (no tool, no cgroup2 at all, no right to unshare). */
export type NamespaceSupport = { kind: 'namespaces' } | { kind: 'none'; reason: string };

export type TurnNamespaces =
  /**
   * `wrap(cwd)` goes before the harness's command and arguments. Entering a mount namespace moves a process to its
   * root: the working directory is looked up again inside (`--wdns`; `--wd` would keep the outside one, which the
   * harness could not name: getcwd says "(unreachable)").
   */
  | {
      kind: 'namespaces';
      wrap: (cwd: string) => string[];
      /** The namespace's file, to be the supervisor's descriptor NAMESPACE_FD (spawn's stdio at that index). */
      fd: number;
    }
  | { kind: 'none'; reason: string };

/**
 * Where the supervisor, and so the harness's nsenter, holds the namespace: a descriptor of its own, inherited from the
 * launcher, not the launcher's /proc entry, so that a harness still starts when its launcher died just after the
 * spawn (a worker that crashed). Left open in the harness, it grants nothing: it is the namespace the harness is in
 * (as /proc/self/ns/mnt is), and entering any namespace needs CAP_SYS_ADMIN, which the harness no longer has.
 */
export const NAMESPACE_FD = 4;

/** What spawn's stdio array holds here: a pipe or nothing, or an open descriptor. */
export type StdioSlot = IOType | number;

/** Capabilities that could undo the namespace, dropped for good before the harness starts. */
const DROPPED_CAPS = '-sys_admin,-sys_ptrace,-dac_read_search';

/**
 * Makes the namespace: $1 the cgroup2 mount point, $2 unshare, $3 umount. Its first process removes the mount, says
 * `ready` and sleeps, long enough for the caller to open the namespace by its /proc entry (which keeps it after the
 * process is killed) and bounded, should the caller die first. Every output is closed before the sleep: the caller
 * reads until they are.
 */
const MAKE_SCRIPT = `"$2" --mount --propagation slave -- /bin/sh -c '"$2" "$1" 2>&1 || exit 125; echo ready; exec sleep 60 >/dev/null 2>&1' holder "$1" "$3" &
echo "pid $!"`;

/** Where util-linux lives, should the launcher's PATH lack it. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Made {
  /** Open while the namespace is wanted; a process given it as NAMESPACE_FD can enter it. */
  fd: number;
  wrap: (cwd: string) => string[];
}

/** Why a tool run through spawnSync failed: its error, else the last line it printed, else its exit status. */
function failure(result: SpawnSyncReturns<string>, printed: string): string {
  return result.error?.message ?? (printed.trim().split('\n').at(-1) || `exit ${result.status}`);
}

/** The holder's mount namespace, opened by its /proc entry, the holder then killed (the open file keeps it). */
function openHolderNamespace(
  holder: number,
  output: string,
  made: SpawnSyncReturns<string>,
): { fd: number } | { reason: string } {
  try {
    if (!holder || !/^ready$/m.test(output)) {
      return { reason: `cannot make a mount namespace: ${failure(made, output)}` };
    }
    return { fd: fs.openSync(`/proc/${holder}/ns/mnt`, 'r') };
  } catch (error) {
    return { reason: `cannot open the mount namespace: ${(error as Error).message}` };
  } finally {
    try {
      if (holder) process.kill(holder, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** The namespace for this host's cgroup2 mount point, entered once by a throwaway shell, or why there is none. */
function makeNamespace(): Made | { reason: string } {
  let mountinfo: string;
  try {
    mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch (error) {
    return { reason: `cannot read /proc/self/mountinfo: ${(error as Error).message}` };
  }
  const mount = cgroup2Mount(mountinfo);
  if (!mount) return { reason: 'no cgroup2 file system is mounted' };
  const env = { PATH: `${process.env.PATH ?? ''}:${SYSTEM_PATH}` };
  const names = ['unshare', 'umount', 'nsenter', 'setpriv'];
  const files = names.map((tool) => findExecutable(tool, env));
  const missing = names.filter((_tool, i) => files[i] === null);
  if (missing.length > 0) return { reason: `${missing.join(', ')} not found` };
  const [unshare = '', umount = '', nsenter = '', setpriv = ''] = files as string[];

  const made = spawnSync(
    '/bin/sh',
    ['-c', MAKE_SCRIPT, 'the-loop-namespace', mount.mountPoint, unshare, umount],
    {
      encoding: 'utf8',
      env,
      timeout: 10_000,
    },
  );
  const holder = Number(/^pid (\d+)$/m.exec(made.stdout ?? '')?.[1] ?? 0);
  const output = `${made.stdout ?? ''}${made.stderr ?? ''}`.replace(/^pid \d+\n/m, '').trim();
  const opened = openHolderNamespace(holder, output, made);
  if ('reason' in opened) return opened;
  const { fd } = opened;
  const wrap = (cwd: string) => [
    nsenter,
    `--mount=/proc/self/fd/${NAMESPACE_FD}`,
    `--wdns=${cwd}`,
    '--',
    setpriv,
    '--bounding-set',
    DROPPED_CAPS,
    '--inh-caps',
    DROPPED_CAPS,
    '--',
  ];
  const [file = '', ...args] = wrap('/');
  const probe = spawnSync(file, [...args, '/bin/sh', '-c', 'exit 0'], {
    encoding: 'utf8',
    timeout: 10_000,
    stdio: namespaceStdio(['ignore', 'pipe', 'pipe'], fd),
  });
  if (probe.status !== 0) {
    fs.closeSync(fd);
    return { reason: `cannot start a process in the mount namespace: ${failure(probe, probe.stderr)}` };
  }
  return { fd, wrap };
}

/** `stdio` with the namespace's file at NAMESPACE_FD (the slots between are left closed). */
export function namespaceStdio(stdio: readonly StdioSlot[], fd: number): StdioSlot[] {
  const slots: StdioSlot[] = [...stdio];
  while (slots.length < NAMESPACE_FD) slots.push('ignore');
  slots[NAMESPACE_FD] = fd;
  return slots;
}

/** Proves, the way a launcher does, that this host gives harnesses the namespace, saying why not; keeps nothing. */
export function probeTurnNamespaces(): NamespaceSupport {
  const made = makeNamespace();
  if ('reason' in made) return { kind: 'none', reason: made.reason };
  fs.closeSync(made.fd);
  return { kind: 'namespaces' };
}

let launcherNamespaces: TurnNamespaces | null = null;

/** The launcher's namespace, made once and kept while it runs: the host does not change meanwhile. */
export function turnNamespaces(): TurnNamespaces {
  if (launcherNamespaces) return launcherNamespaces;
  const made = makeNamespace();
  launcherNamespaces =
    'reason' in made ? { kind: 'none', reason: made.reason } : { kind: 'namespaces', ...made };
  return launcherNamespaces;
}
