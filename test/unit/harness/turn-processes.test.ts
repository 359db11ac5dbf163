import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { execa } from 'execa';
import { readExit } from '../../../src/activities/recover-run';
import { hostContainment } from '../../../src/harness/cgroup';
import { probeTurnNamespaces } from '../../../src/harness/namespaces';
import { findExecutable } from '../../../src/harness/find-executable';
import { compiledSupervisorPath, SUPERVISORS } from '../../support/supervisors';

const SPAWN_DETACHED = resolve(__dirname, '../../../dist/src/harness/spawn-detached.js');

/** What one process did, from its own strace file: the programs it ran (successful execve) and its children. */
interface Traced {
  programs: string[];
  children: number[];
}

/** Reads `strace -ff -o <prefix>` output: one file per process, `<prefix>.<pid>`. */
function readTrace(dir: string, prefix: string): Map<number, Traced> {
  const traced = new Map<number, Traced>();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${prefix}.`)) continue;
    const programs: string[] = [];
    const children: number[] = [];
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      const exec = /^execve\("([^"]+)",.*\)\s+=\s+0$/.exec(line);
      if (exec?.[1]) programs.push(basename(exec[1]));
      const fork = /^(?:clone3?|fork|vfork)\(.*\)\s+=\s+(\d+)$/.exec(line);
      if (fork?.[1] && !/CLONE_THREAD/.test(line)) children.push(Number(fork[1]));
    }
    traced.set(Number(name.slice(prefix.length + 1)), { programs, children });
  }
  return traced;
}

/** The processes `pid` and its descendants started, each as the programs it ran in turn, the process itself first. */
function processTree(traced: Map<number, Traced>, pid: number): string[][] {
  const own = traced.get(pid);
  if (!own) return [];
  return [own.programs, ...own.children.flatMap((child) => processTree(traced, child))];
}

/**
 * A turn starts the harness and its supervisor, and nothing else (issue 28): no `date`, no `mv`, no extra shell.
 * Counted with strace over a Node process that starts two turns the way the launcher does; the first warms what the
 * launcher makes once (the cgroup base, the mount namespace), the second is the one counted. The compiled supervisor
 * execs the harness in its only child, whatever the host gives. The shell supervisor (a machine without a C compiler,
 * or THE_LOOP_SUPERVISOR=shell), where the host gives harnesses a mount namespace (root, with util-linux:
 * namespaces.ts), starts the harness through nsenter and setpriv, which exec one another in the harness's process.
 */
test.each(SUPERVISORS)(
  'a turn started by the %s supervisor starts the harness and no other process',
  async (supervisor) => {
    compiledSupervisorPath();
    const strace = findExecutable('strace', { PATH: process.env.PATH ?? '' });
    if (!strace) throw new Error('strace is not installed: apt-get install strace (.ci/run installs it)');
    expect(readFileSync(SPAWN_DETACHED, 'utf8')).toContain('spawnDetached'); // missing: npm run build
    const dir = mkdtempSync(join(tmpdir(), 'turn-processes-'));
    try {
      const turn = (n: number) => ({
        type: 'launch',
        id: n,
        command: 'true',
        args: [],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        stdin: null,
        stdoutFile: join(dir, `stdout-${n}.txt`),
        stderrFile: join(dir, `stderr-${n}.txt`),
        exitFile: join(dir, `${n}`, 'exit.json'),
      });
      const script = `const fs = require('node:fs');
const { spawnDetached } = require(${JSON.stringify(SPAWN_DETACHED)});
const run = (request) => new Promise((done) => {
  fs.mkdirSync(require('node:path').dirname(request.exitFile));
  let spawned;
  spawnDetached(request, (event) => {
    if (event.type === 'spawned') spawned = event;
    if (event.type === 'spawn-error') throw new Error(event.message);
    if (event.type === 'exit') {
      if (spawned.cgroup) fs.rmdirSync(spawned.cgroup);
      done(spawned.pid);
    }
  });
});
(async () => {
  const first = await run(${JSON.stringify(turn(1))});
  const second = await run(${JSON.stringify(turn(2))});
  console.log(JSON.stringify({ first, second }));
})();`;
      const { stdout } = await execa(
        strace,
        [
          '-f',
          '-ff',
          '-qq',
          '-e',
          'trace=execve,clone,clone3,fork,vfork',
          '-e',
          'signal=none',
          '-o',
          join(dir, 'trace'),
        ].concat([process.execPath, '-e', script]),
        { timeout: 60_000, env: supervisor === 'shell' ? { THE_LOOP_SUPERVISOR: 'shell' } : {} },
      );
      const { second } = JSON.parse(stdout) as { first: number; second: number };
      expect(readExit(join(dir, '2'))).toMatchObject({ code: 0, signal: null });

      const processes = processTree(readTrace(dir, 'trace'), second);
      const contained =
        hostContainment('self').kind === 'cgroup' && probeTurnNamespaces().kind === 'namespaces';
      if (supervisor === 'compiled') expect(processes).toEqual([['the-loop-supervisor'], ['true']]);
      else
        expect(processes).toEqual(contained ? [['sh'], ['nsenter', 'setpriv', 'true']] : [['sh'], ['true']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
