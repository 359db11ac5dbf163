import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { isAlive } from '../../src/service/dev-server';
import { freePort } from '../support/dev-server';
import { runCli } from '../support/cli';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

describe('the-loop start / status / stop (embedded dev server)', () => {
  let stateDir: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let uiPort: number;

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'the-loop-svc-'));
    [port, uiPort] = [await freePort(), await freePort()];
    const configFile = join(stateDir, 'the-loop.yaml');
    writeFileSync(configFile, `temporal:\n  devServer:\n    port: ${port}\n    uiPort: ${uiPort}\n`);
    env = {
      THE_LOOP_STATE_DIR: stateDir,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
      TEMPORAL_ADDRESS: '',
    };
  });

  afterAll(async () => {
    await runCli(['stop'], { env });
  });

  const pidOf = (name: string) => Number(readFileSync(join(stateDir, `${name}.pid`), 'utf8').trim());

  it('starts, reports, survives a server SIGKILL with its data, is idempotent, and stops cleanly', async () => {
    const start = await runCli(['start', '--log-level', 'debug'], { env });
    expect(start.stderr).not.toMatch(/Error/);
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/started the Temporal dev server/);
    expect(start.stdout).toMatch(/started a worker/);
    // The worker `start` runs logs JSON lines to its log file, at the level `start` was given.
    const workerLog = await waitFor('the worker to log that it polls', () => {
      const lines = readFileSync(join(stateDir, 'logs', 'worker.log'), 'utf8')
        .split('\n')
        .filter(Boolean);
      const entries = lines.map((line) => JSON.parse(line) as { level: number; msg: string; pid: number });
      return (
        entries.some((e) => e.msg.startsWith('worker polling')) &&
        entries.some((e) => e.msg.startsWith('containment: ')) &&
        entries
      );
    });
    // the containment this host's runs get, as `the-loop status` prints it
    expect(workerLog).toContainEqual(
      expect.objectContaining({
        level: 30,
        msg: expect.stringMatching(/^containment: (cgroup v2 at |process group)/),
      }),
    );
    expect(workerLog.every((e) => e.pid === pidOf('worker'))).toBe(true);
    expect(workerLog).toContainEqual(
      expect.objectContaining({ level: 30, msg: expect.stringMatching(/^worker polling the-loop and /) }),
    );
    // the SDK's own lines (and so activities' and workflows' `log`) reach the same logger, debug ones included
    expect(workerLog).toContainEqual(expect.objectContaining({ level: 20, sdkComponent: 'worker' }));
    const serverPid = pidOf('temporal');
    const workerPid = pidOf('worker');

    const status = await runCli(['status'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`127.0.0.1:${port}`);
    expect(status.stdout).toMatch(/server: +running/);
    expect(status.stdout).toMatch(/worker: +running/);
    expect(status.stdout).toContain(`http://127.0.0.1:${uiPort}`);

    const ui = await fetch(`http://127.0.0.1:${uiPort}`);
    expect(ui.status).toBe(200);

    // A workflow in the SQLite file, visible to the real temporal CLI.
    const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    const client = new Client({ connection });
    await client.workflow.start('markerWorkflow', {
      taskQueue: 'nowhere',
      workflowId: 'persistence-marker',
      args: [],
    });
    const listed = execFileSync(
      testServer().cliPath,
      ['workflow', 'list', '--address', `127.0.0.1:${port}`],
      {
        encoding: 'utf8',
      },
    );
    expect(listed).toContain('persistence-marker');
    await connection.close();

    const again = await runCli(['start'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already running \(pid \d+\)/);
    expect(pidOf('temporal')).toBe(serverPid);

    // A server killed with SIGKILL is restarted, by the supervisor or by the next `start`, whichever comes first.
    process.kill(serverPid, 'SIGKILL');
    while (isAlive(serverPid)) await new Promise((r) => setTimeout(r, 50));
    const restart = await runCli(['start'], { env });
    expect(restart.code).toBe(0);
    expect(restart.stdout).toMatch(
      /started the Temporal dev server|the Temporal dev server is already running/,
    );
    expect(pidOf('temporal')).not.toBe(serverPid);
    const reconnected = await Connection.connect({ address: `127.0.0.1:${port}` });
    const described = await new Client({ connection: reconnected }).workflow
      .getHandle('persistence-marker')
      .describe();
    expect(described.workflowId).toBe('persistence-marker');
    await reconnected.close();

    const newServerPid = pidOf('temporal');
    const stop = await runCli(['stop'], { env });
    expect(stop.code).toBe(0);
    for (const pid of [newServerPid, workerPid]) expect(isAlive(pid)).toBe(false);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(
      join(stateDir, 'temporal.db'),
    );
  });
});

describe('bad input', () => {
  it('an unknown command exits 2 with a suggestion', async () => {
    const result = await runCli(['statsu']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'statsu'/);
    expect(result.stderr).toMatch(/Did you mean status\?/);
  });

  it('an unknown flag exits 2 with a suggestion', async () => {
    const result = await runCli(['status', '--formt', 'json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--formt'/);
    expect(result.stderr).toMatch(/Did you mean --format\?/);
  });

  it('a malformed the-loop.yaml gives one line naming the file, the line and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-cfg-'));
    const file = join(dir, 'the-loop.yaml');
    writeFileSync(file, 'temporal:\n  taskQueue: main\nrouting:\n  tmux:\n    keepSessionOnClose: maybe\n');
    const result = await runCli(['status', '--config', file]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${file}:5: routing.tmux.keepSessionOnClose:`);
  });

  it('an unknown field in the-loop.yaml is named with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-cfg-'));
    writeFileSync(join(dir, 'the-loop.yaml'), 'worker:\n  hostid: a\n');
    execFileSync('git', ['init', '-q', dir]);
    const result = await runCli(['status'], { cwd: dir, env: { THE_LOOP_CONFIG: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `the-loop: ${join(dir, 'the-loop.yaml')}:2: worker.hostid: unknown field 'hostid'`,
    );
  });

  it('a TEMPORAL_ADDRESS that points nowhere fails clearly (exit 4 on its own, not a hang)', async () => {
    const port = await freePort();
    const result = await runCli(['worker'], {
      env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
      // killed only if it hangs: the CLI's own connection deadline is far shorter
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`cannot reach Temporal at 127.0.0.1:${port}`);
  });

  it('--version and --help work under both names', async () => {
    const version = await runCli(['--version'], { name: 'loopy' });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['start', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: the-loop start/);
  });
});
