/**
 * The test suite on a loaded machine, so that a test that depends on timing fails here rather than on a busy CI
 * machine. Two modes:
 *
 *   npm run test:stress [-- <jest arguments>]
 *       burners: CPU-burning processes beside jest for its whole run (THE_LOOP_STRESS_BURNERS=<n>, default 2).
 *   npm run test:stress -- --two-suites [<jest arguments>]
 *       two suites: two copies of this checkout (its files as they are now, committed or not), each built, run the
 *       integration suite at the same time, each with its own dev server, HOME, tmux sockets and temporary files.
 *       Both must pass. Their output goes to a log file each (named on the way), whose tail is printed on failure.
 *
 * Prints each run's time and the load averages seen, and exits non-zero when any jest run failed; the burners and
 * the copies' processes are stopped however it ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';

const REPO = resolve(__dirname, '..', '..');
const JEST = join('node_modules', 'jest', 'bin', 'jest.js');

function startBurners(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }),
  );
}

/** The one-minute load average, sampled every 10 s while the runs go, for the report. */
function sampleLoad(): { stop(): string } {
  const samples: number[] = [loadavg()[0] ?? 0];
  const timer = setInterval(() => samples.push(loadavg()[0] ?? 0), 10_000);
  return {
    stop() {
      clearInterval(timer);
      const sorted = [...samples].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
      return `load average (1 min) median ${median.toFixed(1)}, max ${(sorted.at(-1) ?? 0).toFixed(1)}`;
    },
  };
}

function onExitSignals(stop: (signal: NodeJS.Signals) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
}

function runJest(cwd: string, args: string[], output: 'inherit' | string): ChildProcess {
  const child = spawn(process.execPath, [JEST, ...args], {
    cwd,
    stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  if (output !== 'inherit') {
    const log = createWriteStream(output);
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  return child;
}

function ended(child: ChildProcess): Promise<number> {
  return new Promise((done) => child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0))));
}

async function burnersMode(args: string[]): Promise<number> {
  const count = Number(process.env.THE_LOOP_STRESS_BURNERS ?? 2);
  if (!Number.isInteger(count) || count < 0 || count > 64) {
    console.error(`test:stress: THE_LOOP_STRESS_BURNERS must be an integer from 0 to 64, not '${count}'`);
    return 2;
  }
  const burners = startBurners(count);
  const stopBurners = () => {
    for (const burner of burners)
      if (burner.exitCode === null && burner.signalCode === null) burner.kill('SIGKILL');
  };
  process.on('exit', stopBurners);
  const load = sampleLoad();
  const started = Date.now();
  console.log(`test:stress: ${count} CPU burners (pids ${burners.map((b) => b.pid).join(', ')}) beside jest`);
  const jest = runJest(REPO, args, 'inherit');
  onExitSignals((signal) => jest.kill(signal));
  const code = await ended(jest);
  stopBurners();
  console.log(`test:stress: jest exited ${code} after ${seconds(started)} s; ${load.stop()}`);
  return code;
}

/**
 * A copy of the checkout as it is now: every file git tracks or would track (so uncommitted work is tested too),
 * node_modules linked from this checkout (the packages are the same; installing them twice would take minutes).
 */
async function copyCheckout(into: string): Promise<void> {
  const { stdout } = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const from = join(REPO, file);
    if (!existsSync(from)) continue; // deleted in the work tree, not yet in the index
    mkdirSync(dirname(join(into, file)), { recursive: true });
    copyFileSync(from, join(into, file));
  }
  symlinkSync(join(REPO, 'node_modules'), join(into, 'node_modules'));
}

async function twoSuitesMode(args: string[]): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'the-loop-two-suites-'));
  const copies = ['a', 'b'].map((name) => ({ name, dir: join(root, name), log: join(root, `${name}.log`) }));
  console.log(
    `test:stress: two copies of this checkout in ${root}, each building and then running the integration suite`,
  );
  await Promise.all(copies.map((copy) => copyCheckout(copy.dir)));
  // One build at a time: two tsc runs at once gain nothing on two cores, and the runs below start together.
  for (const copy of copies) {
    const build = await execa('npm', ['run', 'build'], { cwd: copy.dir, all: true, reject: false });
    if (build.exitCode !== 0) {
      console.error(`test:stress: the build of copy ${copy.name} failed:\n${build.all}`);
      return 1;
    }
  }
  const load = sampleLoad();
  const started = Date.now();
  // Two files at a time in each copy: four at once in all, as many as one CI run has (jest.config.js). The mode
  // proves that two suites share nothing; at four files each (load 30 on 2 cores) every test's own 120 s budget
  // is overrun, which proves only that the machine is too small for eight at once. `--maxWorkers` overrides it.
  const workers = args.some((arg) => arg.startsWith('--maxWorkers')) ? [] : ['--maxWorkers=2'];
  const jestArgs = ['--selectProjects', 'integration', ...workers, ...args];
  const runs = copies.map((copy) => {
    console.log(`test:stress: copy ${copy.name}: jest ${jestArgs.join(' ')} > ${copy.log}`);
    return { copy, child: runJest(copy.dir, jestArgs, copy.log) };
  });
  onExitSignals((signal) => runs.forEach((run) => run.child.kill(signal)));
  const codes = await Promise.all(
    runs.map(async (run) => {
      const code = await ended(run.child);
      console.log(`test:stress: copy ${run.copy.name}: jest exited ${code} after ${seconds(started)} s`);
      return code;
    }),
  );
  console.log(`test:stress: both suites ended after ${seconds(started)} s; ${load.stop()}`);
  for (const [i, run] of runs.entries()) {
    const summary = readFileSync(run.copy.log, 'utf8').split('\n');
    const tail =
      codes[i] === 0
        ? summary.filter((line) => /^(Tests|Test Suites|Time):/.test(line))
        : summary.slice(-120);
    console.log(`--- copy ${run.copy.name} (${run.copy.log}) ---\n${tail.join('\n')}`);
  }
  // The copies go; their logs stay for a look after a failure.
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
  return codes.every((code) => code === 0) ? 0 : 1;
}

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 1000);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args[0] === '--two-suites') return twoSuitesMode(args.slice(1));
  return burnersMode(args);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`test:stress: ${(error as Error).message}`);
    process.exit(1);
  },
);
