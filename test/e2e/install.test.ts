// A newcomer's script: the packed project installed by name into a scratch prefix with a scratch HOME, then
// `loopy --version` from `/` and a goal session from a directory that has nothing to do with the repository.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { runProcess } from '../support/run-process';
import { testServer, uniqueQueue } from '../support/temporal';

const REPO = join(__dirname, '..', '..');

/** A command as the newcomer's shell runs it: exactly the environment given, nothing of this process's. */
const run = (file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  runProcess(file, args, { ...options, timeoutMs: 600_000 });

// A packed install and a session through a fresh worker: minutes on a loaded machine (139 s seen in CI), so every
// test here gets a generous deadline rather than jest's 120 s.
jest.setTimeout(600_000);

describe('installed by name, as a newcomer does it', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'the-loop-install-'));
  const prefix = join(scratch, 'prefix');
  const home = join(scratch, 'home');
  const bin = join(prefix, 'bin');
  // Only the installed commands, node and the system: nothing of the repository is on this PATH.
  const PATH = [bin, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
  const userEnv = (): NodeJS.ProcessEnv => ({
    PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TEMPORAL_ADDRESS: testServer().address,
  });

  beforeAll(async () => {
    mkdirSync(home, { recursive: true });
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string })
      .version;
    // The suite builds dist/ first (npm test), so the pack skips `prepare`; the installed files are what ships.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], {
      cwd: REPO,
      env: process.env,
    });
    expect(packed.code).toBe(0);
    const tarball = join(scratch, `the-loop-${version}.tgz`);
    expect(existsSync(tarball)).toBe(true);
    // The user's npm cache keeps this offline where the dependencies were installed before; a cold cache fetches.
    const cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    const installed = await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--cache',
        cache,
        '--no-audit',
        '--no-fund',
        '--no-update-notifier',
        '--loglevel=error',
        tarball,
      ],
      { cwd: scratch, env: { ...process.env, HOME: home } },
    );
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
  }, 600_000);

  afterAll(async () => {
    if (existsSync(join(bin, 'the-loop')))
      await run(join(bin, 'the-loop'), ['stop'], { cwd: scratch, env: userEnv() });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('puts the-loop and loopy on PATH; --version answers from /', async () => {
    expect(readdirSync(bin).sort()).toEqual(['loopy', 'the-loop']);
    // What runs beside the CLI ships too: the Claude Code plugin (hosted sessions load it), the compiled
    // supervisor's source (the worker builds it) and the docs.
    const pkg = join(prefix, 'lib', 'node_modules', 'the-loop');
    for (const file of [
      'plugin/.claude-plugin/plugin.json',
      '.claude-plugin/marketplace.json',
      'src/harness/supervisor.c',
      'docs/temporal.md',
    ])
      expect(existsSync(join(pkg, file))).toBe(true);
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string })
      .version;
    for (const name of ['loopy', 'the-loop']) {
      const result = await run(name, ['--version'], { cwd: '/', env: userEnv() });
      expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('starts `sessions list` from the start-up snapshot that ships in the package', async () => {
    // sh -x prints the command the launcher runs; the package's files carry npm's fixed date, not the build's.
    const result = await run('sh', ['-x', join(bin, 'the-loop'), 'sessions', 'list'], {
      cwd: '/',
      env: userEnv(),
    });
    expect(result.code).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'the-loop');
    expect(result.stderr).toContain(`node --snapshot-blob ${pkg}/bin/../dist/snapshot/cli.blob`);
    expect(result.stderr).toMatch(/^no sessions in .*\/home\/\.local\/state\/the-loop\/local$/m);
  });

  it('runs a goal session from an unrelated directory, with config and state under the scratch HOME', async () => {
    const taskQueue = uniqueQueue('install');
    const configDir = join(home, '.config', 'the-loop');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'config.yaml'), `temporal:\n  taskQueue: ${taskQueue}\n`);
    const project = mkdtempSync(join(tmpdir(), 'newcomer-project-'));
    // The agent: says what turn it is, and stops the loop through control.json on its second turn.
    writeFileSync(
      join(project, 'agent.sh'),
      [
        'echo "turn $LOOPY_ITERATION"',
        'if [ "$LOOPY_ITERATION" -ge 2 ]; then',
        '  printf \'{"state": "stopped", "reason": "two turns are enough"}\' > "$LOOPY_CONTROL_FILE"',
        'fi',
        '',
      ].join('\n'),
    );
    const env = userEnv();
    const started = await run('the-loop', ['start'], { cwd: project, env });
    expect(started.code).toBe(0);
    const session = await run(
      'loopy',
      ['run', '--goal', 'say hello twice', '--harness', 'command', '--harness-command', 'sh agent.sh'],
      { cwd: project, env },
    );
    expect(session.stderr).toBe('');
    expect(session.code).toBe(0);
    expect(session.stdout).toMatch(/session stopped \(control\): two turns are enough — 2 iterations/);
    const id = /^session (\S+)$/m.exec(session.stdout)?.[1] ?? '';
    const dir = join(project, '.loopy_loop', 'sessions', id);
    expect(readFileSync(join(dir, 'iterations', '0002_worker', 'result_text.txt'), 'utf8')).toBe('turn 2\n');
    const list = await run('loopy', ['list', '--format', 'json'], { cwd: project, env });
    expect(JSON.parse(list.stdout)).toMatchObject([
      { session_id: id, status: 'stopped', stop: { kind: 'control' } },
    ]);
    // The worker `start` left runs from the installed package, with its state under the scratch HOME.
    const status = await run('the-loop', ['status', '--format', 'json'], { cwd: project, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(join(home, '.local', 'state', 'the-loop'));
    const stopped = await run('the-loop', ['stop'], { cwd: project, env });
    expect(stopped.code).toBe(0);
    rmSync(project, { recursive: true, force: true });
  });
});
