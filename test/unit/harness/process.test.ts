import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  isProcessGroupAlive,
  killProcessGroup,
  liveProcessGroupMembers,
  runProcess,
} from '../../../src/harness/process';
import { launcherPid } from '../../../src/harness/launcher';

jest.setTimeout(20000);

function startGroup(script: string): number {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

test('killProcessGroup: none for a gone group, sigterm for a polite one, sigkill for a stubborn one', async () => {
  const polite = startGroup('sleep 30 & sleep 30');
  expect(isProcessGroupAlive(polite)).toBe(true);
  expect(await killProcessGroup(polite, 2000)).toEqual({ action: 'sigterm', settled: true });
  expect(await killProcessGroup(polite, 100)).toEqual({ action: 'none', settled: true });

  const stubborn = startGroup("trap '' TERM; sleep 30 & sleep 30");
  await new Promise((r) => setTimeout(r, 200)); // let the shell install its trap
  expect(await killProcessGroup(stubborn, 300)).toEqual({ action: 'sigkill', settled: true });
  expect(liveProcessGroupMembers(stubborn) ?? []).toEqual([]);
  expect(isProcessGroupAlive(stubborn)).toBe(false);
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
        killGraceMs: 200,
        onSpawn,
      }),
    };
  };

  test('starts harnesses as its own children, not as children of the (large) worker process', async () => {
    const { dir, outcome } = run('echo $PPID');
    const out = await outcome;
    const launcher = launcherPid();
    expect(launcher).toBeDefined(); // undefined: dist/ is not built (npm run build)
    expect(Number(out.stdout.trim())).toBe(launcher);
    expect(launcher).not.toBe(process.pid);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a launcher that dies mid-run: the run ends, its group is killed, and the next run gets a new launcher', async () => {
    let spawned: { pid: number; pgid: number } | null = null;
    const { dir, outcome } = run('sleep 30 & sleep 30', (info) => (spawned = info));
    await waitUntil(() => spawned !== null);
    const first = launcherPid();
    process.kill(first ?? 0, 'SIGKILL');
    const out = await outcome;
    expect(out.stderr).toContain('the harness launcher exited');
    expect(out.kill).toEqual({ action: 'sigterm', settled: true });
    expect(isProcessGroupAlive((spawned as unknown as { pgid: number }).pgid)).toBe(false);

    const again = run('echo again');
    expect((await again.outcome).stdout).toBe('again\n');
    expect(launcherPid()).not.toBe(first);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(again.dir, { recursive: true, force: true });
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
