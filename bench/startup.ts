/**
 * CLI start-up against `node -e 0` in the same run, as ratios: `--version`, `--help`, the file-only commands over
 * 1,000 records (`sessions list`, `loopy list`, `inbox`), and `loopy status` of a finished and of a running goal
 * session (a scratch dev server and worker; the running session's harness sleeps). Each command runs as a user's
 * shell runs it: the launcher bin/the-loop.js executed, which starts the commands run most often from V8 start-up
 * snapshots (src/cli/snapshot-main.ts, snapshot-status.ts); `sessions list` is also timed from the script
 * (THE_LOOP_SNAPSHOT=0), with and without the compile cache (src/cli/compile-cache.ts). The cache lives in the run's
 * own directory and is filled by one untimed run of each command first, as it is from a user's second command on.
 * Also says whether each command's script loads the Temporal client at all (a preload reports it at exit; a
 * snapshot loads no module). Goals (issue 28): --version ≤ 1.5×; sessions list, loopy list, inbox and a running
 * session's status ≤ 2×; a running session's status ≤ 1.3× a finished one's.
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
import { startLiveSessions } from './live-sessions';

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
  /** A second goal, against another probe's time: ≤ target × that probe's. */
  against?: { label: string; target: number };
}

const verdict = (ratio: number, target: number | undefined) =>
  target === undefined ? '' : `  (goal ≤ ${target}×: ${ratio <= target ? 'met' : 'MISSED'})`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const sessions = arg('sessions', 1000);
  const runs = arg('runs', 9);
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-startup-'));
  const live = await startLiveSessions(join(dir, 'live'), sessions);
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
      { label: `loopy list (${sessions})`, file: loopy, args: ['list'], cwd: live.cwd, target: 2 },
      {
        label: `the-loop inbox (${sessions} + ${sessions})`,
        file: bin,
        args: ['inbox'],
        cwd: live.cwd,
        target: 2,
      },
      {
        label: 'loopy status (finished session)',
        file: loopy,
        args: ['status', live.finished],
        cwd: live.cwd,
        env: { ...env, THE_LOOP_CONFIG: live.configFile, THE_LOOP_STATE_DIR: live.stateDir },
      },
      {
        label: 'loopy status (running session)',
        file: loopy,
        args: ['status', live.running],
        cwd: live.cwd,
        env: { ...env, THE_LOOP_CONFIG: live.configFile, THE_LOOP_STATE_DIR: live.stateDir },
        target: 2,
        against: { label: 'loopy status (finished session)', target: 1.3 },
      },
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
      console.log(
        `${probe.label.padEnd(37)} ${ms.toFixed(1).padStart(8)} ms  ${ratio.toFixed(2).padStart(5)}×${verdict(ratio, probe.target)}${loaded}`,
      );
      if (probe.against) {
        const other = probes.findIndex((q) => q.label === probe.against?.label);
        const against = ms / median(samples[other] ?? []);
        console.log(
          `  against ${probe.against.label.padEnd(27)} ${''.padStart(11)}  ${against.toFixed(2).padStart(5)}×${verdict(against, probe.against.target)}`,
        );
      }
    });
  } finally {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
