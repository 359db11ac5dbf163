// `sessions list`, `list`, `inbox` and loopy's `status` start node from the CLI's V8 start-up snapshot
// (src/cli/snapshot-main.ts) when the launcher (bin/the-loop.js) finds one built by this node since the last tsc.
// Whatever path it takes, the command prints what the script prints; when in doubt it takes the script.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRegistry } from '../../src/work-item/sample-registry';
import { sessionsRoot } from '../../src/session/paths';
import type { SessionStateFile } from '../../src/session/schemas/state';
import { newSessionState } from '../../src/workflows/goal-session/bookkeeping';
import { updatePortable } from '../../src/work-item/portable';
import { refSlug } from '../../src/work-item/ref';
import { runProcess } from '../support/run-process';

const REPO = join(__dirname, '..', '..');
const SNAPSHOT = join(REPO, 'dist', 'snapshot');

/**
 * Runs the launcher under `sh -x`: the trace (stderr lines starting with `+`) shows which node commands it ran, the
 * last in `ran`.
 */
async function launch(bin: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) {
  const result = await runProcess('sh', ['-x', bin, ...args], {
    env: { ...process.env, THE_LOOP_CONFIG: '', NODE_OPTIONS: '', THE_LOOP_SNAPSHOT: '', ...env },
    ...(cwd ? { cwd } : {}),
  });
  const lines = result.stderr.split('\n');
  const nodes = lines.filter((line) => /^\+ (exec )?node /.test(line));
  return {
    ...result,
    stderr: lines.filter((line) => !line.startsWith('+')).join('\n'),
    ran: nodes.at(-1) ?? '',
    nodes,
  };
}

const fromSnapshot = (ran: string) => ran.includes('--snapshot-blob');

describe('the commands served from the start-up snapshot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-snapshot-'));
  const { configFile, dirs } = seedRegistry(dir, 40);
  const env = { THE_LOOP_STATE_DIR: dir };

  beforeAll(async () => {
    if (!existsSync(join(SNAPSHOT, 'cli.blob')))
      throw new Error(`${SNAPSHOT}/cli.blob is missing: run \`npm run build\`, which builds it`);
    // A record that does not parse (the list warns and goes on) and one with a process-graph node.
    writeFileSync(join(dirs.registryDir, 'broken.json'), '{"schema_version": 1');
    const ref = { provider: 'github' as const, host: 'github.com', owner: 'octo', repo: 'repo3', number: 10 };
    await updatePortable(dirs, refSlug(ref), 'github:octo/repo3#10', (current) => ({
      ...current,
      graph: { node: 'review', at: new Date(0).toISOString() },
    }));
  });

  const bin = join(REPO, 'bin', 'the-loop.js');
  const loopy = join(REPO, 'bin', 'loopy');
  const cases: [string, string, string[]][] = [
    ['the table', bin, ['--config', configFile, 'sessions', 'list']],
    [
      'json, one status',
      bin,
      ['sessions', 'list', '--config', configFile, '--format', 'json', '--status', 'paused'],
    ],
    ['an unknown status (exit 2)', bin, ['sessions', 'list', '--status', 'bogus']],
    ['a config that is not there, as loopy', loopy, ['--config', join(dir, 'none.yaml'), 'sessions', 'list']],
    ['help', bin, ['sessions', 'list', '--help']],
  ];

  // Goal sessions under a working directory: one that ended, one that has not (and no worker to ask about it).
  const cwd = join(dir, 'work');
  const goalSession = (id: string, status: SessionStateFile['status']) => {
    const sessionDir = join(sessionsRoot(cwd), id);
    mkdirSync(sessionDir, { recursive: true });
    writeFileSync(join(sessionDir, 'session.json'), '{}');
    writeFileSync(join(sessionDir, 'goal.md'), `goal of ${id}\n`);
    const state = { ...newSessionState(id, '2026-12-06T20:00:00.000Z'), status, iteration: 2 };
    writeFileSync(join(sessionDir, 'state.json'), JSON.stringify(state));
  };
  const ended = '20261206_200000_0123456789ab_00000001';
  const unfinished = '20261206_200100_0123456789ab_00000002';
  goalSession(ended, 'stopped');
  goalSession(unfinished, 'running');
  cases.push(
    ['loopy list', loopy, ['--config', configFile, 'list']],
    ['loopy list, json, one status', loopy, ['list', '--format', 'json', '--status', 'running']],
    ['loopy list, an unknown status (exit 2)', loopy, ['list', '--status', 'bogus']],
    ['inbox', bin, ['--config', configFile, 'inbox']],
    ['inbox, json', bin, ['--config', configFile, 'inbox', '--format', 'json']],
    ['loopy status of a session that ended', loopy, ['status', ended]],
    ['loopy status, json', loopy, ['status', ended, '--format', 'json']],
    ['loopy status of an unknown id (exit 2)', loopy, ['status', 'nope']],
  );

  it.each(cases)('%s: the same output and exit code as the script', async (_name, file, args) => {
    const snapshot = await launch(file, args, env, cwd);
    const script = await launch(file, args, { ...env, THE_LOOP_SNAPSHOT: '0' }, cwd);
    expect(fromSnapshot(snapshot.ran)).toBe(true);
    expect(fromSnapshot(script.ran)).toBe(false);
    expect({ code: snapshot.code, stdout: snapshot.stdout, stderr: snapshot.stderr }).toEqual({
      code: script.code,
      stdout: script.stdout,
      stderr: script.stderr,
    });
  });

  it('lists every record, the warning for the broken one, and the node', async () => {
    const result = await launch(bin, ['--config', configFile, 'sessions', 'list'], env);
    expect(fromSnapshot(result.ran)).toBe(true);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(41);
    expect(result.stderr).toMatch(/^warning: skipped .*broken\.json/);
    expect(result.stdout).toMatch(/github:octo\/repo3#10 .* review /);
  });

  it('loopy status of a session no local worker answers for: the snapshot hands over to the script, which asks Temporal', async () => {
    const result = await launch(loopy, ['status', unfinished], env, cwd);
    // the snapshot ran first and printed nothing; then the script
    expect(result.nodes).toHaveLength(2);
    expect(fromSnapshot(result.nodes[0] ?? '')).toBe(true);
    expect(result.ran).toMatch(/^\+ exec node /);
    const script = await launch(loopy, ['status', unfinished], { ...env, THE_LOOP_SNAPSHOT: '0' }, cwd);
    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: script.code,
      stdout: script.stdout,
    });
    expect(result.stdout).toMatch(/^status +running/m);
  });

  it("the-loop's own status is the service's: the script runs it", async () => {
    const result = await launch(bin, ['status', '--format', 'json'], env, cwd);
    expect(result.nodes).toHaveLength(1);
    expect(result.ran).toMatch(/^\+ exec node /);
  });

  it('other commands, and NODE_OPTIONS (V8 refuses a snapshot under other V8 flags), take the script', async () => {
    const other = await launch(bin, ['--config', configFile, 'sessions', 'show', 'github:octo/repo1#1'], env);
    expect(other.ran).toMatch(/^\+ exec node /);
    const withOptions = await launch(bin, ['--config', configFile, 'sessions', 'list'], {
      ...env,
      NODE_OPTIONS: '--max-old-space-size=512',
    });
    expect(withOptions.ran).toMatch(/^\+ exec node /);
    expect(withOptions.code).toBe(0);
    expect(withOptions.stdout.trimEnd().split('\n')).toHaveLength(41);
  });

  describe('a package whose snapshot cannot be used', () => {
    /** A copy of the launcher beside dist/src, with a copy of the snapshot that `spoil` may change. */
    function packageCopy(spoil: (snapshot: string) => void): string {
      const root = mkdtempSync(join(tmpdir(), 'the-loop-package-'));
      mkdirSync(join(root, 'bin'));
      mkdirSync(join(root, 'dist', 'snapshot'), { recursive: true });
      copyFileSync(bin, join(root, 'bin', 'the-loop.js'));
      symlinkSync(join(REPO, 'dist', 'src'), join(root, 'dist', 'src'));
      for (const file of ['cli.blob', 'node'])
        copyFileSync(join(SNAPSHOT, file), join(root, 'dist', 'snapshot', file));
      spoil(join(root, 'dist', 'snapshot'));
      return join(root, 'bin', 'the-loop.js');
    }
    const list = ['--config', configFile, 'sessions', 'list'];

    it('an intact copy uses its snapshot (the control for the cases below)', async () => {
      const result = await launch(
        packageCopy(() => undefined),
        list,
        env,
      );
      expect(fromSnapshot(result.ran)).toBe(true);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(41);
    });

    it('tsc ran after the snapshot was built: the script runs', async () => {
      const copy = packageCopy((snapshot) => {
        const buildInfo = join(snapshot, '..', '.tsbuildinfo');
        writeFileSync(buildInfo, '{}');
        const later = new Date(statSync(join(snapshot, 'cli.blob')).mtimeMs + 60_000);
        utimesSync(buildInfo, later, later);
      });
      const result = await launch(copy, list, env);
      expect(result.ran).toMatch(/^\+ exec node /);
      expect(result.code).toBe(0);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(41);
    });

    it('built by another node binary: the script runs', async () => {
      const copy = packageCopy((snapshot) => writeFileSync(join(snapshot, 'node'), '/opt/other/bin/node\n'));
      const result = await launch(copy, list, env);
      expect(result.ran).toMatch(/^\+ exec node /);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(41);
    });

    it('refused by node (built by another version at this path): node says so, and the command still runs', async () => {
      const copy = packageCopy((snapshot) => {
        // The blob's header names the node version that built it; another one makes node exit 14 before any code.
        const blob = readFileSync(join(snapshot, 'cli.blob'));
        const at = blob.indexOf(process.versions.node);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(at).toBeLessThan(256);
        blob.write('9'.repeat(process.versions.node.length), at);
        writeFileSync(join(snapshot, 'cli.blob'), blob);
      });
      const result = await launch(copy, list, env);
      expect(result.ran).toMatch(/^\+ exec node /);
      expect(result.code).toBe(0);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(41);
      expect(result.stderr).toMatch(/Failed to load the startup snapshot because it was built with/);
    });
  });
});
