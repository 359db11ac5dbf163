import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { cgroup2Mount } from '../../../src/harness/cgroup';
import { describeContainment, probeContainment } from '../../../src/harness/containment';
import { probeTurnNamespaces } from '../../../src/harness/namespaces';
import { procStatFields } from '../../../src/harness/process-group';
import { runProcess } from '../../../src/harness/process';

jest.setTimeout(30_000);

/** Alive and able to work: a killed process that nobody reaps stays a zombie (PID 1 here does not reap). */
function isLive(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/**
 * Ways out of a turn's cgroup for a harness running as root, each tried by its own escapee: a double fork into a
 * session of its own that writes its pid into an ancestor cgroup's cgroup.procs ($1 the cgroup2 mount point, as the
 * host sees it; $2 the test's mount namespace; $3 the test's pid: a root process in the host's namespaces), records its pid and sleeps.
 */
const ESCAPES = {
  'the root cgroup by its host path': 'echo $$ > "$1/cgroup.procs"',
  'the root cgroup by a /proc/self/cgroup-derived path':
    'own=$(sed -n "s/^0:://p" /proc/self/cgroup); echo $$ > "$1$own/../../cgroup.procs"; echo $$ > "$1$own/../cgroup.procs"',
  // Only in a mount namespace of its own: never the host's mount, should the harness run in the test's.
  'the root cgroup after unmounting the cgroup2 mount':
    '[ "$(readlink /proc/self/ns/mnt)" != "$2" ] && umount "$1"; echo $$ > "$1/cgroup.procs"',
  'the root cgroup through the host mount namespace at /proc/<pid>/root':
    'echo $$ > "/proc/$3/root$1/cgroup.procs"',
  'the root cgroup from the host’s namespaces (nsenter)': `nsenter -t "$3" -m -C /bin/sh -c 'echo $PPID > "$0/cgroup.procs"' "$1"`,
  'the root cgroup through a cgroup2 mount of its own':
    'mkdir -p "cg-$$" && mount -t cgroup2 cgroup2 "cg-$$" && echo $$ > "cg-$$/cgroup.procs"',
};

function harnessScript(mountPoint: string): string {
  const escapees = Object.values(ESCAPES).map(
    (escape, i) =>
      `( setsid /bin/sh -c '${escape.replace(/'/g, `'\\''`)}; echo $$ > escapee-${i}.tmp && mv escapee-${i}.tmp escapee-${i}; exec sleep 3600' escapee '${mountPoint}' '${fs.readlinkSync('/proc/self/ns/mnt')}' ${process.pid} </dev/null >/dev/null 2>&1 & )`,
  );
  const waits = Object.keys(ESCAPES).map((_e, i) => `while [ ! -s escapee-${i} ]; do sleep 0.05; done`);
  return [
    ...escapees,
    ...waits,
    'echo "cgroup2 mounts: $(grep -c \' - cgroup2 \' /proc/self/mountinfo)"',
    'echo ran',
    'exit 3',
  ].join('\n');
}

const root = process.getuid?.() === 0;
const namespaces = probeTurnNamespaces();

describe('containment of a harness running as root', () => {
  const escapees: number[] = [];
  afterEach(() => {
    for (const pid of escapees.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  });

  if (root && namespaces.kind === 'namespaces') {
    test('a root harness that writes itself into the root cgroup does not outlive its turn, and runs normally', async () => {
      const mount = cgroup2Mount(fs.readFileSync('/proc/self/mountinfo', 'utf8'));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'root-escape-'));
      const out = await runProcess({
        command: '/bin/sh',
        args: ['-c', harnessScript(mount?.mountPoint ?? '')],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        stdin: null,
        outputDir: path.join(dir, 'o'),
        timeoutMs: 20_000,
        killGraceMs: 5_000,
      });
      const pids = Object.keys(ESCAPES).map((_e, i) =>
        Number(fs.readFileSync(path.join(dir, `escapee-${i}`), 'utf8')),
      );
      escapees.push(...pids);
      const survivors = Object.keys(ESCAPES).filter((_e, i) => isLive(pids[i] ?? 0));
      expect(survivors).toEqual([]);
      // It ran as ever: its output and exit code are recorded; inside, no cgroup2 file system is mounted.
      expect(out).toMatchObject({ exitCode: 3, signal: null, spawnError: null });
      expect(out.stdout).toMatch(/^cgroup2 mounts: 0\n/m);
      expect(out.stdout).toMatch(/ran\n$/);
      expect(out.kill?.cgroup).toMatchObject({ found: true, settled: true, removed: true });
      fs.rmSync(dir, { recursive: true, force: true });
    });
  } else {
    test('where the host gives no namespaces, `the-loop status` says a root harness can leave its cgroup', async () => {
      expect(namespaces).toMatchObject({ kind: 'none' });
      const host = await probeContainment(null);
      if (host.kind === 'cgroup')
        expect(describeContainment(host)).toContain('without a mount namespace of its own');
    });
  }

  test('the status line says which one this host gives', () => {
    const base = '/sys/fs/cgroup/unified/the-loop';
    expect(describeContainment({ kind: 'cgroup', base, namespaces: { kind: 'mount' } })).toBe(
      `containment: cgroup v2 at ${base} (a cgroup per turn, in a mount namespace without cgroup2, so that a ` +
        'root harness cannot leave it; cgroup.kill ends every process a turn started)',
    );
    expect(
      describeContainment({
        kind: 'cgroup',
        base,
        namespaces: { kind: 'none', reason: 'unshare not found' },
      }),
    ).toBe(
      `containment: cgroup v2 at ${base} (a cgroup per turn, without a mount namespace of its own (unshare not ` +
        'found), so that a root harness can leave it; cgroup.kill ends every process a turn started)',
    );
  });
});
