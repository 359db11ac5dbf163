/**
 * `the-loop sessions list` over 1,000 registered sessions, against `ls` of the registry directory in the same
 * run (the floor: a process that only reads the directory). The CLI runs as a shell runs it: the launcher, which
 * starts `sessions list` from the start-up snapshot.
 *
 *   npm run build && node dist/bench/sessions-list.js [--sessions 1000] [--runs 5]
 *
 * Prints figures; never a timed test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedRegistry } from '../src/work-item/sample-registry';
import { loadAverage } from './stats';

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
    const { configFile, dirs } = seedRegistry(dir, sessions);
    const bin = resolve(__dirname, '..', '..', 'bin', 'the-loop.js');
    const env = { ...process.env, THE_LOOP_CONFIG: configFile, THE_LOOP_STATE_DIR: dir };
    console.log(
      `sessions list over ${sessions} registered sessions (${runs} runs each, same machine, same run)`,
    );
    const ls = time('ls <registryDir>', runs, 'ls', [dirs.registryDir], env);
    const version = time('the-loop --version (startup floor)', runs, bin, ['--version'], env);
    const table = time('the-loop sessions list', runs, bin, ['sessions', 'list'], env);
    const json = time(
      'the-loop sessions list --format json',
      runs,
      bin,
      ['sessions', 'list', '--format', 'json'],
      env,
    );
    const closed = time(
      'the-loop sessions list --status closed',
      runs,
      bin,
      ['sessions', 'list', '--status', 'closed'],
      env,
    );
    console.log(
      `list (table) costs ${(table / ls).toFixed(1)}× ls; ${(table - version).toFixed(1)} ms above the CLI's own start-up; json ${json.toFixed(1)} ms, --status closed ${closed.toFixed(1)} ms`,
    );
    console.log(loadAverage());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
