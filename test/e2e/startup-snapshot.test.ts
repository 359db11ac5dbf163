// `sessions list` starts node from the CLI's V8 start-up snapshot (src/cli/snapshot-main.ts) when the launcher
// (bin/the-loop.js) finds one built by this node since the last tsc. Whatever path it takes, the command prints
// what the script prints; when in doubt it takes the script.
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
import { updatePortable } from '../../src/work-item/portable';
import { refSlug } from '../../src/work-item/ref';
import { runProcess } from '../support/run-process';

const REPO = join(__dirname, '..', '..');
const SNAPSHOT = join(REPO, 'dist', 'snapshot');

/** Runs the launcher under `sh -x`: the trace (stderr lines starting with `+`) shows which node command it ran. */
async function launch(bin: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = await runProcess('sh', ['-x', bin, ...args], {
    env: { ...process.env, THE_LOOP_CONFIG: '', NODE_OPTIONS: '', THE_LOOP_SNAPSHOT: '', ...env },
  });
  const lines = result.stderr.split('\n');
  const ran = lines.filter((line) => /^\+ (exec )?node /.test(line)).pop() ?? '';
  return { ...result, stderr: lines.filter((line) => !line.startsWith('+')).join('\n'), ran };
}

const fromSnapshot = (ran: string) => ran.includes('--snapshot-blob');

describe('sessions list from the start-up snapshot', () => {
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

  it.each(cases)('%s: the same output and exit code as the script', async (_name, file, args) => {
    const snapshot = await launch(file, args, env);
    const script = await launch(file, args, { ...env, THE_LOOP_SNAPSHOT: '0' });
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
