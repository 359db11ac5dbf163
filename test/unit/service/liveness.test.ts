import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningProcess } from '../../../src/service/process-facts';
import { pidFileOf, registeredProcess } from '../../../src/service/service-processes';
import { waitFor } from '../../support/wait';

const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

/** A process that is a zombie until its parent (a `sleep` that never waits) dies: an exited, unreaped child. */
async function zombie(): Promise<number> {
  const parent = spawn('bash', ['-c', '(sleep 0.2) & echo $!; exec sleep 600'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  started.push(parent);
  const line = await new Promise<string>((resolve) =>
    parent.stdout!.once('data', (d: Buffer) => resolve(`${d}`)),
  );
  const pid = Number(line.trim());
  await waitFor('the child to become a zombie', () => {
    try {
      return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
  return pid;
}

/** `node …/the-loop.js <args>` with THE_LOOP_STATE_DIR set, as `the-loop start` runs its worker. */
function fakeLoopProcess(args: string[], stateDir: string): number {
  const script = join(mkdtempSync(join(tmpdir(), 'the-loop-bin-')), 'the-loop.js');
  writeFileSync(script, 'setInterval(() => {}, 1000);\n');
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, THE_LOOP_STATE_DIR: stateDir },
    stdio: 'ignore',
  });
  started.push(child);
  return child.pid!;
}

describe('liveness of the service processes', () => {
  it('a zombie is not running, although kill(pid, 0) still accepts it', async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(runningProcess(pid)).toBeNull();

    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-live-'));
    writeFileSync(pidFileOf(stateDir, 'worker'), `${pid}\n`);
    expect(await registeredProcess(stateDir, 'worker')).toBeNull();
  });

  it('a pid file counts only for a process whose command and state directory match', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-live-'));
    const other = mkdtempSync(join(tmpdir(), 'the-loop-live-'));
    const worker = fakeLoopProcess(['--config', 'dev', 'worker', '--ready-file', 'x'], stateDir);
    const foreign = fakeLoopProcess(['worker'], other);
    const runArgIsDev = fakeLoopProcess(['run', '--goal', 'dev'], stateDir);
    await waitFor('the processes to exec', () =>
      [worker, foreign, runArgIsDev].every((pid) => runningProcess(pid)?.argv[1]?.endsWith('the-loop.js')),
    );

    writeFileSync(pidFileOf(stateDir, 'worker'), `${worker}\n`);
    expect(await registeredProcess(stateDir, 'worker')).toEqual({ pid: worker, command: 'worker' });
    // The same kind of process for another state directory, a `loopy run` whose goal is "dev", and a stranger
    // with a recycled pid (this test's own process) are not this state directory's worker.
    for (const pid of [foreign, runArgIsDev, process.pid]) {
      writeFileSync(pidFileOf(stateDir, 'worker'), `${pid}\n`);
      expect(await registeredProcess(stateDir, 'worker')).toBeNull();
    }
  });
});
