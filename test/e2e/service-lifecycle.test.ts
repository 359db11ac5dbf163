import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/service/dev-server';
import { freePort } from '../support/dev-server';
import { BIN, runCli } from '../support/cli';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

const strays: ChildProcess[] = [];
afterAll(() => {
  for (const child of strays) child.kill('SIGKILL');
});

async function serviceEnv(prefix: string) {
  const stateDir = mkdtempSync(join(tmpdir(), prefix));
  const [port, uiPort] = [await freePort(), await freePort()];
  const configFile = join(stateDir, 'the-loop.yaml');
  writeFileSync(configFile, `temporal:\n  devServer:\n    port: ${port}\n    uiPort: ${uiPort}\n`);
  const env: NodeJS.ProcessEnv = {
    THE_LOOP_STATE_DIR: stateDir,
    THE_LOOP_CONFIG: configFile,
    THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
    TEMPORAL_ADDRESS: '',
  };
  return { stateDir, port, env };
}

/** The command lines of every process that mentions `text`, from ps (independent of the code under test). */
function processesMentioning(text: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text) && !/^\s*\d+\s+Z/.test(line));
}

const pidIn = (stateDir: string, name: string) =>
  Number(readFileSync(join(stateDir, `${name}.pid`), 'utf8').trim());

/** A killed worker its parent never reaped: kill(pid, 0) still succeeds for it. */
async function zombieWorker(): Promise<number> {
  const parent = spawn(
    'bash',
    ['-c', `${process.execPath} -e 'setInterval(()=>{},1e3)' & echo $!; exec sleep 600`],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  strays.push(parent);
  const pid = Number(
    await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(`${d}`))),
  );
  await waitFor('the worker to run', () => existsSync(`/proc/${pid}`));
  // Until bash has become `sleep`, bash would reap the killed child itself (on a slow machine it gets there late).
  await waitFor('its parent to be a sleep that never reaps', () => {
    try {
      return readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep';
    } catch {
      return false;
    }
  });
  process.kill(pid, 'SIGKILL');
  await waitFor('the killed worker to be a zombie', () =>
    / Z /.test(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .slice(-200)
        .replace(/^[^)]*\)/, ''),
    ),
  );
  return pid;
}

describe('one service per state directory', () => {
  it('two concurrent starts beside a zombie worker and a stale server pid start one server and one worker; stop finds them without pid files', async () => {
    const { stateDir, port, env } = await serviceEnv('the-loop-life-');
    const db = join(stateDir, 'temporal.db');
    try {
      const zombie = await zombieWorker();
      const stranger = spawn('sleep', ['600'], { stdio: 'ignore' });
      strays.push(stranger);
      writeFileSync(join(stateDir, 'worker.pid'), `${zombie}\n`);
      writeFileSync(join(stateDir, 'temporal.pid'), `${stranger.pid}\n`);

      const before = await runCli(['status'], { env });
      expect(before.stdout).toMatch(new RegExp(`server: +not running \\(pid ${stranger.pid}`));
      expect(before.stdout).toMatch(new RegExp(`worker: +not running \\(pid ${zombie}`));

      const starts = await Promise.all([runCli(['start'], { env }), runCli(['start'], { env })]);
      for (const start of starts)
        expect({ code: start.code, stderr: start.stderr }).toMatchObject({ code: 0 });
      const serverPid = pidIn(stateDir, 'temporal');
      const workerPid = pidIn(stateDir, 'worker');
      expect([serverPid, workerPid]).not.toContain(stranger.pid);
      expect(workerPid).not.toBe(zombie);
      const outputs = starts.map((s) => s.stdout);
      expect(
        outputs.filter((o) => o.includes(`started the Temporal dev server (pid ${serverPid})`)),
      ).toHaveLength(1);
      expect(outputs.filter((o) => o.includes(`already running (pid ${serverPid})`))).toHaveLength(1);
      expect(outputs.filter((o) => o.includes(`started a worker (pid ${workerPid})`))).toHaveLength(1);
      expect(outputs.filter((o) => o.includes(`a worker is already running (pid ${workerPid}`))).toHaveLength(
        1,
      );
      expect(processesMentioning(`--db-filename ${db}`)).toHaveLength(1);
      expect(processesMentioning(`worker --ready-file ${join(stateDir, 'worker.ready.json')}`)).toHaveLength(
        1,
      );

      const status = await runCli(['status'], { env });
      expect(status.stdout).toMatch(new RegExp(`server: +running \\(pid ${serverPid}`));
      expect(status.stdout).toMatch(new RegExp(`worker: +running \\(pid ${workerPid}, \`the-loop worker\``));
      expect(status.stdout).toContain(
        `127.0.0.1:${port} namespace default (embedded dev server) — reachable`,
      );

      // Pid files lost (or pointing elsewhere): stop still finds the server by its database.
      rmSync(join(stateDir, 'temporal.pid'));
      writeFileSync(join(stateDir, 'worker.pid'), `${stranger.pid}\n`);
      const stop = await runCli(['stop'], { env });
      expect(stop.code).toBe(0);
      expect(stop.stdout).toMatch(/worker: stopped \(sig(term|kill)\)/);
      expect(stop.stdout).toMatch(/server: stopped \(sig(term|kill)\)/);
      expect(isAlive(serverPid)).toBe(false);
      expect(isAlive(workerPid)).toBe(false);
      expect(isAlive(stranger.pid!)).toBe(true);
      expect(processesMentioning(stateDir)).toEqual([]);
    } finally {
      await runCli(['stop'], { env });
    }
  });

  it('`the-loop dev` registers its server and worker: status reports them, start and a foreground worker add none', async () => {
    const { stateDir, port, env } = await serviceEnv('the-loop-devreg-');
    const dev = spawn(process.execPath, [BIN, 'dev'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    strays.push(dev);
    let output = '';
    dev.stdout.on('data', (d: Buffer) => (output += d.toString()));
    dev.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
    try {
      const status = await waitFor(
        'status to report the dev worker',
        async () => {
          const result = await runCli(['status'], { env });
          // running, not just named: under load the dev worker's bundling can keep its heartbeat silent a while
          const both =
            new RegExp(`worker: +running \\(pid ${dev.pid}, \`the-loop dev\``).test(result.stdout) &&
            /server: +running/.test(result.stdout);
          return both ? result.stdout : null;
        },
        120_000,
        500,
      );
      expect(status).toMatch(/server: +running \(pid \d+/);
      expect(status).toMatch(new RegExp(`worker: +running \\(pid ${dev.pid}, \`the-loop dev\``));
      expect(status).toContain(`127.0.0.1:${port} namespace default (embedded dev server) — reachable`);
      expect(status).not.toMatch(/webhook:/);

      const start = await runCli(['start'], { env });
      expect(start.code).toBe(0);
      expect(start.stdout).toMatch(/the Temporal dev server is already running \(pid \d+\)/);
      expect(start.stdout).toContain(`a worker is already running (pid ${dev.pid}, \`the-loop dev\`)`);
      expect(processesMentioning(`--db-filename ${join(stateDir, 'temporal.db')}`)).toHaveLength(1);
      expect(processesMentioning(`worker --ready-file`).filter((l) => l.includes(stateDir))).toEqual([]);

      const work = mkdtempSync(join(tmpdir(), 'the-loop-devreg-work-'));
      const run = await runCli(
        [
          'run',
          '--detach',
          '--goal',
          'beside dev',
          '--harness',
          'command',
          '--harness-command',
          'true',
          '--max-iterations',
          '1',
        ],
        { env, cwd: work, name: 'loopy' },
      );
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout.trim()).toMatch(/^\d{8}_\d{6}_[0-9a-f]{12}_[0-9a-f]{8}$/);
      expect(processesMentioning(`--db-filename ${join(stateDir, 'temporal.db')}`)).toHaveLength(1);
      expect(processesMentioning(`worker --ready-file`).filter((l) => l.includes(stateDir))).toEqual([]);

      const second = await runCli(['worker'], { env });
      expect(second.code).toBe(1);
      expect(second.stderr.trim()).toBe(
        `the-loop: a worker for ${stateDir} already runs (pid ${dev.pid}, \`the-loop dev\`) — use it, or \`the-loop stop\` first`,
      );

      const secondDev = await runCli(['dev'], { env });
      expect(secondDev.code).toBe(1);
      expect(secondDev.stderr).toMatch(/a Temporal dev server for .* already runs \(pid \d+\)/);

      dev.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toMatch(/stopped\n?$/);
      for (const name of ['temporal', 'worker'])
        expect(existsSync(join(stateDir, `${name}.pid`))).toBe(false);
      const after = await runCli(['status'], { env });
      expect(after.stdout).toMatch(/server: +not started/);
      expect(after.stdout).toMatch(/worker: +not started/);
      expect(processesMentioning(stateDir)).toEqual([]);
    } finally {
      if (dev.exitCode === null) dev.kill('SIGKILL');
      await runCli(['stop'], { env });
    }
  });
});
