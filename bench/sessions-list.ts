/**
 * `the-loop sessions list` over 1,000 registered sessions, against `ls` of the registry directory in the same
 * run (the floor: a process that only reads the directory).
 *
 *   npm run build && node dist/bench/sessions-list.js [--sessions 1000] [--runs 5]
 *
 * Prints figures; never a timed test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configSchema } from '../src/config/schema';
import { workItemDirs } from '../src/work-item/paths';
import { formatRef, refSlug } from '../src/work-item/ref';
import { writeRecord } from '../src/work-item/registry';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function time(label: string, runs: number, cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0) throw new Error(`${label} failed: ${result.stderr}`);
    bytes = result.stdout.length;
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  console.log(
    `${label.padEnd(34)} median ${median.toFixed(1).padStart(8)} ms   min ${(samples[0] ?? 0).toFixed(1).padStart(8)} ms   output ${bytes} bytes`,
  );
  return median;
}

function main(): void {
  const sessions = arg('sessions', 1000);
  const runs = arg('runs', 5);
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-list-'));
  try {
    const root = join(dir, 'root');
    const configFile = join(dir, 'the-loop.yaml');
    writeFileSync(configFile, `state:\n  root: ${root}\n`);
    const dirs = workItemDirs(configSchema.parse({ state: { root } }), dir);
    const now = new Date().toISOString();
    for (let n = 1; n <= sessions; n++) {
      const ref = {
        provider: 'github' as const,
        host: 'github.com',
        owner: 'octo',
        repo: `repo${n % 7}`,
        number: n,
      };
      const workItem = formatRef(ref);
      const slug = refSlug(ref);
      writeRecord(dirs, {
        schema_version: 1,
        work_item: workItem,
        slug,
        status: n % 10 === 0 ? 'closed' : n % 7 === 0 ? 'paused' : 'active',
        harness: 'claude',
        harness_session_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        cwd: `/srv/ws/${slug}`,
        registered_at: now,
        updated_at: now,
        workflow_id: `work-item/${workItem}`,
        run_id: null,
        host_queue: 'the-loop.host.bench',
        session_dir: join(root, 'sessions', slug),
        tmux: { socket: 'the-loop', session: `loop-${slug}`, created_at: now, command: ['claude'] },
        checkout: null,
        pull_requests: n % 3 === 0 ? [`github:octo/repo${n % 7}#${n + 100000}`] : [],
        last_control: { command: 'start', at: now },
        closed_at: null,
        closed_reason: null,
      });
    }
    const bin = resolve(__dirname, '..', '..', 'bin', 'the-loop.js');
    const env = { ...process.env, THE_LOOP_CONFIG: configFile, THE_LOOP_STATE_DIR: dir };
    console.log(
      `sessions list over ${sessions} registered sessions (${runs} runs each, same machine, same run)`,
    );
    const ls = time('ls <registryDir>', runs, 'ls', [dirs.registryDir], env);
    const version = time(
      'the-loop --version (startup floor)',
      runs,
      process.execPath,
      [bin, '--version'],
      env,
    );
    const table = time('the-loop sessions list', runs, process.execPath, [bin, 'sessions', 'list'], env);
    const json = time(
      'the-loop sessions list --format json',
      runs,
      process.execPath,
      [bin, 'sessions', 'list', '--format', 'json'],
      env,
    );
    const closed = time(
      'the-loop sessions list --status closed',
      runs,
      process.execPath,
      [bin, 'sessions', 'list', '--status', 'closed'],
      env,
    );
    console.log(
      `list (table) costs ${(table / ls).toFixed(1)}× ls; ${(table - version).toFixed(1)} ms above the CLI's own start-up; json ${json.toFixed(1)} ms, --status closed ${closed.toFixed(1)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
