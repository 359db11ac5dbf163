import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRegistry } from '../../src/work-item/sample-registry';
import { freePort } from '../support/dev-server';
import { runCli } from '../support/cli';

/**
 * What a command loads decides how fast it starts (bench/startup.ts measures that); this checks the loading itself,
 * so that a static import that drags zod, YAML or Temporal into a light command fails here, not in a benchmark.
 */
const UNKNOWN_SESSION = '20260101_000000_0123456789ab_0badc0de';

/**
 * A preload that prints, at exit, which of the watched packages the process loaded (their entry module ran), how
 * many of the CLI's own compiled modules it loaded, and whether it built an Intl.Collator (ICU's collation data
 * costs about 20 ms to load).
 */
function loadReporter(dir: string): string {
  const file = join(dir, 'report-loaded.js');
  const root = join(__dirname, '..', '..');
  writeFileSync(
    file,
    `const watched = ['zod', 'yaml', 'proper-lockfile', '@temporalio/client', '@temporalio/workflow'];
let collator = false;
Intl.Collator = new Proxy(Intl.Collator, { construct(target, args) { collator = true; return new target(...args); } });
process.on('exit', () => {
  const loaded = watched.filter((name) => require.resolve(name, { paths: [${JSON.stringify(root)}] }) in require.cache);
  const own = Object.keys(require.cache).filter((file) => file.startsWith(${JSON.stringify(join(root, 'dist', 'src'))})).length;
  process.stderr.write('\\n@@loaded=' + JSON.stringify({ loaded, own, collator }) + '\\n');
});
`,
  );
  return file;
}

async function loadedBy(args: string[], env: NodeJS.ProcessEnv = {}, name?: 'loopy') {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-startup-'));
  const result = await runCli(args, {
    env: {
      THE_LOOP_CONFIG: '',
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      XDG_CONFIG_HOME: join(dir, 'xdg'),
      ...env,
      NODE_OPTIONS: `--require ${loadReporter(dir)}`,
    },
    cwd: dir,
    ...(name ? { name } : {}),
  });
  const report = /@@loaded=(\{.*\})/.exec(result.stderr);
  if (!report) throw new Error(`no load report: ${result.stderr}`);
  return { ...result, ...(JSON.parse(report[1]!) as { loaded: string[]; own: number; collator: boolean }) };
}

describe('what a command loads', () => {
  it("--version answers before loading any of the CLI's modules", async () => {
    const result = await loadedBy(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect({ loaded: result.loaded, own: result.own }).toEqual({ loaded: [], own: 0 });
  });

  it('--help loads none of zod, YAML, the lock library or Temporal', async () => {
    const result = await loadedBy(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: the-loop');
    expect(result.loaded).toEqual([]);
  });

  it('sessions list without a config file reads the registry with zod alone', async () => {
    const result = await loadedBy(['sessions', 'list']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no sessions in');
    expect(result.loaded).toEqual(['zod']);
  });

  it('a config file brings in the YAML parser, nothing more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-startup-config-'));
    const config = join(dir, 'the-loop.yaml');
    writeFileSync(config, `state:\n  root: ${join(dir, 'root')}\n`);
    const result = await loadedBy(['sessions', 'list'], { THE_LOOP_CONFIG: config });
    expect(result.code).toBe(0);
    expect(result.loaded).toEqual(['zod', 'yaml']);
  });

  it('sessions list sorts a registry of refs without building a collator', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-startup-registry-'));
    const { configFile } = seedRegistry(dir, 12);
    const result = await loadedBy(['sessions', 'list'], { THE_LOOP_CONFIG: configFile });
    expect(result.code).toBe(0);
    // numeric order, #3 before #10, which a plain string sort would not give
    const refs = result.stdout.split('\n').map((line) => line.split(' ')[0]);
    expect(refs.filter((ref) => ref?.startsWith('github:octo/repo3#'))).toEqual([
      'github:octo/repo3#3',
      'github:octo/repo3#10',
    ]);
    expect(result.collator).toBe(false);
  });

  it('loopy list never loads Temporal', async () => {
    const result = await loadedBy(['list'], {}, 'loopy');
    expect(result.code).toBe(0);
    expect(result.loaded).toEqual(['zod']);
  });

  it('with nothing listening, loopy pause exits 4 with the fix, before loading the Temporal client', async () => {
    const port = await freePort();
    const result = await loadedBy(
      ['pause', UNKNOWN_SESSION],
      { TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
      'loopy',
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `loopy: cannot reach Temporal at 127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}) — check TEMPORAL_ADDRESS`,
    );
    expect(result.loaded).not.toContain('@temporalio/client');
    expect(result.loaded).not.toContain('@temporalio/workflow');
  });
});
