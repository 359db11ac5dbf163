/**
 * CLI start-up against `node -e 0` in the same run, as ratios: `--version`, `--help`, and the file-only
 * commands (`sessions list` over 1,000 records, `loopy list`). Each command runs as a user's shell runs it: the
 * launcher bin/the-loop.js executed, which starts `sessions list` from the V8 start-up snapshot
 * (src/cli/snapshot-main.ts); that command is also timed from the script (THE_LOOP_SNAPSHOT=0), with and without
 * the compile cache (src/cli/compile-cache.ts). The cache lives in the run's own directory and is filled by one
 * untimed run of each command first, as it is from a user's second command on. Also says whether each command's
 * script loads the Temporal client at all (a preload reports it at exit; the snapshot loads no module).
 * Targets: --version ≤ 1.5×, sessions list ≤ 2×.
 *
 *   npm run build && node dist/bench/startup.js [--sessions 1000] [--runs 9]
 *
 * Prints figures; never a timed test.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedRegistry } from '../src/work-item/sample-registry';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

interface Probe {
  label: string;
  /** What is executed: node for the baseline, the launcher for the CLI. */
  file: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  target?: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function main(): void {
  const sessions = arg('sessions', 1000);
  const runs = arg('runs', 9);
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-startup-'));
  try {
    const { configFile } = seedRegistry(dir, sessions);
    const emptyCwd = join(dir, 'work');
    mkdirSync(emptyCwd);
    // Reports at exit whether the Temporal client (or its protos) was loaded by the command.
    const preload = join(dir, 'report-temporal.js');
    writeFileSync(
      preload,
      "process.on('exit', () => { const hit = Object.keys(require.cache).some((k) => k.includes('@temporalio/')); process.stderr.write(`\\n@@temporal=${hit}\\n`); });\n",
    );
    const bin = resolve(__dirname, '..', '..', 'bin', 'the-loop.js');
    const loopy = resolve(__dirname, '..', '..', 'bin', 'loopy');
    const env = {
      ...process.env,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_STATE_DIR: dir,
      XDG_CACHE_HOME: join(dir, 'cache'),
      THE_LOOP_COMPILE_CACHE_DIR: '',
      THE_LOOP_COMPILE_CACHE: '',
      THE_LOOP_SNAPSHOT: '',
      NODE_OPTIONS: '',
    };
    const list = ['sessions', 'list'];
    const probes: Probe[] = [
      { label: 'node -e 0 (baseline)', file: process.execPath, args: ['-e', '0'] },
      { label: 'the-loop --version', file: bin, args: ['--version'], target: 1.5 },
      { label: 'the-loop --help', file: bin, args: ['--help'] },
      { label: `the-loop sessions list (${sessions})`, file: bin, args: list, target: 2 },
      {
        label: '  the same, from the script',
        file: bin,
        args: list,
        env: { ...env, THE_LOOP_SNAPSHOT: '0' },
      },
      {
        label: '  the same, script, no compile cache',
        file: bin,
        args: list,
        env: { ...env, THE_LOOP_SNAPSHOT: '0', THE_LOOP_COMPILE_CACHE: '0' },
      },
      { label: 'loopy list (no sessions)', file: loopy, args: ['list'], cwd: emptyCwd },
    ];
    const samples = probes.map(() => [] as number[]);
    const runProbe = (probe: Probe) => {
      const started = process.hrtime.bigint();
      const result = spawnSync(probe.file, probe.args, {
        env: probe.env ?? env,
        cwd: probe.cwd,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      if (result.status !== 0) throw new Error(`${probe.label} failed: ${result.stderr}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    probes.forEach(runProbe); // fills the compile cache
    // Interleaved, so that a busy moment on the machine weighs on every probe alike.
    for (let i = 0; i < runs; i++) probes.forEach((probe, p) => samples[p]?.push(runProbe(probe)));
    const base = median(samples[0] ?? []);
    console.log(
      `CLI start-up against node -e 0 (${runs} interleaved runs each, median, same machine, same run; ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
    );
    probes.forEach((probe, p) => {
      const ms = median(samples[p] ?? []);
      const ratio = ms / base;
      const loaded =
        p === 0
          ? ''
          : /@@temporal=true/.test(
                spawnSync(process.execPath, ['-r', preload, probe.file, ...probe.args], {
                  env: probe.env ?? env,
                  cwd: probe.cwd,
                  encoding: 'utf8',
                  maxBuffer: 1 << 28,
                }).stderr,
              )
            ? '  loads Temporal'
            : '  no Temporal';
      const verdict =
        probe.target === undefined
          ? ''
          : ratio <= probe.target
            ? `  (target ≤ ${probe.target}×: met)`
            : `  (target ≤ ${probe.target}×: MISSED)`;
      console.log(
        `${probe.label.padEnd(37)} ${ms.toFixed(1).padStart(8)} ms  ${ratio.toFixed(2).padStart(5)}×${verdict}${loaded}`,
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
