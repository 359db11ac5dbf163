import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { readExit } from '../../../src/activities/recover-run';
import { runProcess } from '../../../src/harness/process';
import {
  descendantGroups,
  isProcessGroupAlive,
  killProcessGroup,
  liveProcessGroupMembers,
} from '../../../src/harness/process-group';
import { killCgroup } from '../../../src/harness/cgroup-kill';
import { compiledSupervisorPath, supervisorOf, SUPERVISORS } from '../../support/supervisors';
import { harnessExitFileSchema } from '../../../src/session/schemas';

/** A process's parent, from /proc/<pid>/stat (its fourth field, after the parenthesised name). */
function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The launcher that started a run, found through the run's supervisor (its child). Not any launcher child of this
 * process: a test file that ran earlier in this jest worker leaves its own launcher running beside this file's.
 */
function launcherOf(supervisorPid: number): number {
  const launcher = parentOf(supervisorPid);
  expect(fs.readFileSync(`/proc/${launcher}/cmdline`, 'utf8')).toContain('launcher-main.js');
  return launcher;
}

// Above the launcher runs' own 20 s timeout and 10 s grace: on a loaded machine, a wait ends with what it saw.
jest.setTimeout(120_000);

function startGroup(script: string): number {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

test('killProcessGroup: none for a gone group, sigterm for a polite one, sigkill for a stubborn one', async () => {
  const polite = startGroup('sleep 30 & sleep 30');
  expect(isProcessGroupAlive(polite)).toBe(true);
  expect(await killProcessGroup(polite, 10_000)).toEqual({ action: 'sigterm', settled: true, cgroup: null });
  expect(await killProcessGroup(polite, 100)).toEqual({ action: 'none', settled: true, cgroup: null });

  const trapped = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'proc-')), 'trapped');
  const stubborn = startGroup(`trap '' TERM; touch ${trapped}; sleep 30 & sleep 30`);
  // the shell has installed its trap once the file is there, however slowly a loaded machine starts it
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(trapped) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(await killProcessGroup(stubborn, 300)).toEqual({ action: 'sigkill', settled: true, cgroup: null });
  expect(liveProcessGroupMembers(stubborn) ?? []).toEqual([]);
  expect(isProcessGroupAlive(stubborn)).toBe(false);
});

test('killProcessGroup also ends the groups that descendants of its members lead (a CLI running its tools under setsid)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-'));
  const pidFile = path.join(dir, 'tool.pid');
  // As the real claude runs a Bash command: a child in a session and group of its own, which a signal to -pgid misses.
  const cli = startGroup(
    `setsid /bin/sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 30' & wait`,
  );
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const tool = Number(fs.readFileSync(pidFile, 'utf8'));
  expect(tool).not.toBe(cli);
  expect(isProcessGroupAlive(tool)).toBe(true);
  expect(await killProcessGroup(cli, 10_000)).toEqual({ action: 'sigterm', settled: true, cgroup: null });
  expect(isProcessGroupAlive(tool)).toBe(false);
});

test('a sealed cgroup bounds the scans to its members and the group leader; one that is gone, to all of /proc', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-'));
  const pidFile = path.join(dir, 'tool.pid');
  const cli = startGroup(
    `sleep 30 & setsid /bin/sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 30' & wait`,
  );
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const tool = Number(fs.readFileSync(pidFile, 'utf8'));
  const everywhere = liveProcessGroupMembers(cli) ?? [];
  expect(everywhere).toEqual(expect.arrayContaining([cli]));
  expect(everywhere.length).toBeGreaterThanOrEqual(2); // the shell and its background sleep
  expect(descendantGroups(cli)).toEqual([tool]);

  // A stand-in for the run's cgroup directory: only its member list is read.
  const cgroup = fs.mkdtempSync(path.join(os.tmpdir(), 'cgroup-'));
  const procs = path.join(cgroup, 'cgroup.procs');
  // The supervisor has not joined yet: its leader still counts, and nothing else is looked at.
  fs.writeFileSync(procs, '');
  expect(liveProcessGroupMembers(cli, cgroup)).toEqual([cli]);
  expect(isProcessGroupAlive(cli, cgroup)).toBe(true);
  expect(descendantGroups(cli, cgroup)).toEqual([]);
  // Every member listed: the same as a scan of all of /proc.
  fs.writeFileSync(procs, [...everywhere, tool].map((pid) => `${pid}\n`).join(''));
  expect(liveProcessGroupMembers(cli, cgroup)?.sort()).toEqual([...everywhere].sort());
  expect(descendantGroups(cli, cgroup)).toEqual([tool]);
  // The cgroup is gone (a supervisor that cannot join it removes it): the run is looked for everywhere.
  expect(liveProcessGroupMembers(cli, path.join(cgroup, 'gone'))?.sort()).toEqual([...everywhere].sort());

  expect(await killProcessGroup(cli, 10_000)).toMatchObject({ action: 'sigterm', settled: true });
  expect(isProcessGroupAlive(tool)).toBe(false);
});

test('killProcessGroup refuses pgid 0, 1 and negatives', async () => {
  await expect(killProcessGroup(1, 10)).rejects.toThrow(/refusing/);
  await expect(killProcessGroup(0, 10)).rejects.toThrow(/refusing/);
});

test('runProcess tees output to files and reports a missing cwd clearly', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-'));
  const out = await runProcess({
    command: '/bin/sh',
    args: ['-c', 'cat; echo err >&2; exit 4'],
    cwd: dir,
    env: process.env,
    stdin: 'input',
    outputDir: path.join(dir, 'o'),
    timeoutMs: 10000,
    killGraceMs: 100,
  });
  expect(out).toMatchObject({
    exitCode: 4,
    stdout: 'input',
    stderr: 'err\n',
    timedOut: false,
    spawnError: null,
  });
  expect(fs.readFileSync(path.join(dir, 'o', 'stdout.txt'), 'utf8')).toBe('input');
  expect(fs.readFileSync(path.join(dir, 'o', 'stderr.txt'), 'utf8')).toBe('err\n');
  const missing = await runProcess({
    command: '/bin/true',
    args: [],
    cwd: path.join(dir, 'nope'),
    env: process.env,
    stdin: null,
    outputDir: path.join(dir, 'o2'),
    timeoutMs: 1000,
    killGraceMs: 100,
  });
  expect(missing.spawnError?.message).toBe(`working directory ${path.join(dir, 'nope')} does not exist`);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the harness launcher', () => {
  const run = (script: string, onSpawn?: (info: { pid: number; pgid: number }) => void) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-launcher-'));
    return {
      dir,
      outcome: runProcess({
        command: '/bin/sh',
        args: ['-c', script],
        cwd: dir,
        env: process.env,
        stdin: null,
        outputDir: path.join(dir, 'o'),
        timeoutMs: 20000,
        // generous: `sleep` ends at SIGTERM at once, and a loaded machine must not turn that into a SIGKILL
        killGraceMs: 10_000,
        onSpawn,
      }),
    };
  };

  test('starts harnesses under their supervisor, a child of its own, not of the (large) worker process', async () => {
    // The harness prints its supervisor's parent, read while both run.
    const { dir, outcome } = run("cut -d' ' -f4 /proc/$PPID/stat");
    const out = await outcome;
    const launcher = Number(out.stdout.trim());
    expect({ launcher, exitCode: out.exitCode, stderr: out.stderr }).toEqual({
      launcher: expect.any(Number),
      exitCode: 0,
      stderr: '',
    });
    // A launcher: it runs launcher-main.js (dist/ is built: npm run build), and is this process's child, not itself.
    expect(fs.readFileSync(`/proc/${launcher}/cmdline`, 'utf8')).toContain('launcher-main.js');
    expect(parentOf(launcher)).toBe(process.pid);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a secret in the harness's environment reaches neither its supervisor's argv nor its own", async () => {
    const secret = 'sk-ant-secret-0123456789abcdef';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-secret-'));
    const out = await runProcess({
      command: '/bin/sh',
      // The harness reads its supervisor's argv ($PPID) and its own while both run; it sees the secret in its env.
      args: [
        '-c',
        'cat /proc/$PPID/cmdline > supervisor.argv; cat /proc/$$/cmdline > harness.argv; echo "$KEY"',
      ],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', KEY: secret },
      stdin: null,
      outputDir: path.join(dir, 'o'),
      timeoutMs: 20000,
      killGraceMs: 200,
    });
    const supervisorArgv = fs.readFileSync(path.join(dir, 'supervisor.argv'), 'utf8');
    const harnessArgv = fs.readFileSync(path.join(dir, 'harness.argv'), 'utf8');
    const seen = out.stdout.trim();
    expect(supervisorArgv).toContain('the-loop-supervisor'); // it is the supervisor's argv that was read
    expect(supervisorArgv).toContain(path.join(dir, 'o', 'exit.json'));
    expect(seen).toBe(secret); // the secret did reach the harness, through its environment
    expect(supervisorArgv).not.toContain(secret);
    expect(harnessArgv).not.toContain(secret);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a launcher that dies mid-run: the run ends, its group is killed, and the next run gets a new launcher', async () => {
    let spawned: { pid: number; pgid: number } | null = null;
    const { dir, outcome } = run('sleep 30 & sleep 30', (info) => (spawned = info));
    await waitUntil(() => spawned !== null);
    // Mid-run: the harness runs (both sleeps). A SIGTERM that reached the supervisor before it started the harness
    // would leave the harness to the grace period's SIGKILL, which is not what this test is about.
    const group = (spawned as unknown as { pgid: number }).pgid;
    const sleeps = () =>
      (liveProcessGroupMembers(group) ?? []).filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep';
        } catch {
          return false;
        }
      }).length;
    await waitUntil(() => sleeps() === 2);
    const first = launcherOf(group);
    process.kill(first, 'SIGKILL');
    const out = await outcome;
    expect(out.stderr).toContain('the harness launcher exited');
    expect(out.kill).toMatchObject({ action: 'sigterm', settled: true });
    expect(isProcessGroupAlive((spawned as unknown as { pgid: number }).pgid)).toBe(false);

    const again = run("cut -d' ' -f4 /proc/$PPID/stat");
    const second = Number((await again.outcome).stdout.trim());
    expect(fs.readFileSync(`/proc/${second}/cmdline`, 'utf8')).toContain('launcher-main.js');
    expect(second).not.toBe(first);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(again.dir, { recursive: true, force: true });
  });
});

describe.each(SUPERVISORS)('the %s supervisor', (kind) => {
  const SPAWN_DETACHED = path.resolve(__dirname, '../../../dist/src/harness/spawn-detached.js');
  let compiled = '';
  beforeAll(() => {
    compiled = compiledSupervisorPath();
  });
  /** The runs' cgroups: nobody ends these runs as a turn would, so the test removes them. */
  const cgroups: string[] = [];
  afterEach(async () => {
    for (const dir of cgroups.splice(0))
      expect(await killCgroup(dir, 10_000)).toMatchObject({ removed: true });
  });
  /** The launcher's environment: THE_LOOP_SUPERVISOR=shell makes it start the shell supervisor. */
  const launcherEnv = (): NodeJS.ProcessEnv =>
    kind === 'shell' ? { ...process.env, THE_LOOP_SUPERVISOR: 'shell' } : process.env;

  /** Starts `script` the way the launcher does, from a Node process of its own that is then SIGKILLed. */
  async function startThenKillParent(dir: string, script: string): Promise<number> {
    const request = {
      type: 'launch',
      id: 1,
      command: '/bin/sh',
      args: ['-c', script],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdin: null,
      stdoutFile: path.join(dir, 'stdout.txt'),
      stderrFile: path.join(dir, 'stderr.txt'),
      exitFile: path.join(dir, 'exit.json'),
    };
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(SPAWN_DETACHED)}).spawnDetached(${JSON.stringify(request)}, (e) => { if (e.type === 'spawned') console.log(JSON.stringify(e)); }); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: launcherEnv() },
    );
    const { pid, cgroup } = await new Promise<{ pid: number; cgroup: string | null }>((resolve) =>
      parent.stdout.once('data', (d) =>
        resolve(JSON.parse(String(d)) as { pid: number; cgroup: string | null }),
      ),
    );
    if (cgroup) cgroups.push(cgroup);
    parent.kill('SIGKILL');
    await new Promise((resolve) => parent.once('exit', resolve));
    return pid;
  }

  test('records the exit in exit.json although the process that started it is gone', async () => {
    expect(fs.existsSync(SPAWN_DETACHED)).toBe(true); // false: dist/ is not built (npm run build)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-'));
    // The harness waits for its starter to be gone before it ends.
    await startThenKillParent(
      dir,
      'while kill -0 $PPID 2>/dev/null && [ ! -f go ]; do sleep 0.05; done; echo reply; exit 5',
    );
    fs.writeFileSync(path.join(dir, 'go'), '');
    await waitUntil(() => readExit(dir) !== null, 20_000);
    const exit = harnessExitFileSchema.parse(
      JSON.parse(fs.readFileSync(path.join(dir, 'exit.json'), 'utf8')),
    );
    expect(exit).toMatchObject({ code: 5, signal: null });
    expect(fs.readFileSync(path.join(dir, 'stdout.txt'), 'utf8')).toBe('reply\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('records a harness killed by a signal as that signal, and a killed supervisor writes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-'));
    await startThenKillParent(dir, 'kill -TERM $$');
    await waitUntil(() => readExit(dir) !== null, 20_000);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'exit.json'), 'utf8'))).toMatchObject({
      code: null,
      signal: 'SIGTERM',
    });

    const killed = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-'));
    const pgid = await startThenKillParent(killed, 'sleep 30');
    process.kill(-pgid, 'SIGKILL');
    await waitUntil(() => !isProcessGroupAlive(pgid), 20_000);
    expect(readExit(killed)).toBeNull(); // the blanks reserved for it, and no verdict
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(killed, { recursive: true, force: true });
  });

  test('a SIGTERM before the harness starts: the harness is never started, the run is recorded as ended by it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-'));
    // The supervisor's first step, joining its cgroup, blocks on a FIFO standing in for cgroup.procs: the stop
    // comes while it is there, before the harness exists. (The compiled one first asks clone3 to start the harness
    // in it, which a directory that is not a cgroup refuses; then it joins, as the shell one does.)
    const cgroupDir = path.join(dir, 'cgroup');
    fs.mkdirSync(cgroupDir);
    const procs = path.join(cgroupDir, 'cgroup.procs');
    spawnSync('mkfifo', [procs]);
    const ran = path.join(dir, 'ran');
    const supervisor = spawn(
      ...supervisorOf(kind, compiled, path.join(dir, 'exit.json'), cgroupDir, 'touch', ran),
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      supervisor.once('exit', (_code, signal) => resolve(signal)),
    );
    const pid = supervisor.pid ?? 0;
    const wchan = () => {
      try {
        return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
      } catch {
        return '';
      }
    };
    await waitUntil(() => wchan() === 'wait_for_partner', 20_000); // blocked opening the FIFO
    process.kill(-pid, 'SIGTERM');
    // The signal interrupts the open; were it restarted instead, a reader lets it go on.
    const reader = fs.openSync(procs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    expect(await ended).toBe('SIGTERM');
    fs.closeSync(reader);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'exit.json'), 'utf8'))).toMatchObject({
      code: null,
      signal: 'SIGTERM',
    });
    expect(fs.existsSync(ran)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a group-wide SIGTERM is left to the harness, whose own exit is recorded', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-'));
    const pgid = await startThenKillParent(
      dir,
      "trap 'echo bye; exit 0' TERM; touch ready; while :; do sleep 0.05; done",
    );
    await waitUntil(() => fs.existsSync(path.join(dir, 'ready')), 20_000);
    process.kill(-pgid, 'SIGTERM');
    await waitUntil(() => readExit(dir) !== null, 20_000);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'exit.json'), 'utf8'))).toMatchObject({
      code: 0,
      signal: null,
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
