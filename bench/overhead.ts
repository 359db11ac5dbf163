/**
 * Orchestration overhead per iteration: N iterations of a harness that does nothing, run through a goal session on
 * an embedded-style dev server (SQLite file), and as a plain loop of the same harness call in the same run.
 *
 *   npm run build && node dist/bench/overhead.js [--iterations 200]
 *
 * Prints figures; never a timed test.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { startScratchService } from './scratch-service';
import { buildSessionInput } from '../src/cli/session-input';
import { startGoalSession } from '../src/cli/start-session';
import { configSchema } from '../src/config/schema';
import { getHarness } from '../src/harness';
import { procStatFields } from '../src/harness/process-group';
import { readJsonFile } from '../src/session/json-file';
import { sessionStateFileSchema } from '../src/session/schemas';
import { historyPhases, type Phase } from './history-phases';
import { ms, percentile } from './stats';

const ITERATIONS = (() => {
  const i = process.argv.indexOf('--iterations');
  const n = i >= 0 ? Number(process.argv[i + 1]) : 200;
  return Number.isInteger(n) && n > 1 ? n : 200;
})();

const ROUTINES = [
  {
    id: 'noop',
    prompt: 'do nothing ({iteration})',
    harness_options: {},
    emits_goal_check: false,
    when: { default: true as const },
  },
];

/**
 * The same number of turns as bare Temporal activities: a workflow on a second queue whose activity starts the same
 * harness process (`true`) and waits for it, and does nothing else — the floor the-loop's share is measured over.
 */
async function bareTemporalLoop(address: string): Promise<{ intervals: number[]; phases: Phase[] }> {
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows/bare-activity-loop'),
    logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} },
  });
  const activities = {
    startHarness: () =>
      new Promise<number>((done, fail) => {
        const child = spawn('true', [], { stdio: 'ignore' });
        child.once('error', fail);
        child.once('exit', (code) => done(code ?? 1));
      }),
  };
  const workers = [
    await Worker.create({ connection, taskQueue: 'bench-bare', workflowBundle, activities }),
    await Worker.create({ connection, taskQueue: 'bench-bare.host', activities }),
  ];
  const running = Promise.all(workers.map((w) => w.run()));
  const client = new Client({ connection: await Connection.connect({ address }) });
  try {
    const handle = await client.workflow.start('bareActivityLoop', {
      taskQueue: 'bench-bare',
      workflowId: `bench-bare-${Date.now()}`,
      args: [ITERATIONS, 'bench-bare.host'],
    });
    const starts = (await handle.result()) as number[];
    return {
      intervals: starts.slice(1).map((t: number, i: number) => t - (starts[i] ?? t)),
      phases: historyPhases((await handle.fetchHistory()).events ?? []),
    };
  } finally {
    for (const w of workers) w.shutdown();
    await running;
    await client.connection.close();
    await connection.close();
  }
}

async function plainLoop(dir: string): Promise<number[]> {
  mkdirSync(dir, { recursive: true });
  const harness = getHarness('command');
  const samples: number[] = [];
  for (let i = 1; i <= ITERATIONS; i++) {
    const iterationDir = join(dir, `it-${i}`);
    const promptFile = join(dir, `prompt-${i}.txt`);
    writeFileSync(promptFile, 'do nothing');
    const started = performance.now();
    const result = await harness.run({
      prompt: 'do nothing',
      promptFile,
      cwd: dir,
      sessionDir: dir,
      iterationDir,
      goalFile: promptFile,
      controlFile: join(dir, 'control.json'),
      outputDir: join(dir, 'out', String(i)),
      runId: `r${i}`,
      iteration: i,
      routineId: 'noop',
      timeoutMs: 60_000,
      options: { commandLine: 'true' },
    });
    samples.push(performance.now() - started);
    if (!result.success) throw new Error(`baseline run ${i} failed: ${result.error}`);
  }
  return samples;
}

/** User plus system CPU time of a process so far (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = procStatFields(pid) ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function childPids(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => Number(procStatFields(entry)?.[1]) === parent)
    .map(Number);
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-'));
  const taskQueue = 'bench-overhead';
  const service = await startScratchService(
    dir,
    taskQueue,
    (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean),
  );
  try {
    await measure(service.address, service.version, dir, taskQueue, service.pids);
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  address: string,
  version: string,
  dir: string,
  taskQueue: string,
  pids: { worker: number; server: number },
): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const config = configSchema.parse({ temporal: { taskQueue }, worker: { hostId: 'bench' } });
  const cwd = join(dir, 'work');
  mkdirSync(cwd);

  // Warm-up: the first session pays for workflow-bundle loading and connection set-up.
  const warm = buildSessionInput(config, {
    goal: 'warm up',
    cwd,
    harness: 'command',
    harnessCommand: 'true',
    routines: ROUTINES,
    maxIterations: 3,
  });
  await (await startGoalSession(client, warm)).result();

  const baseline = await plainLoop(join(dir, 'plain'));
  const bareCpuBefore = { bench: cpuMs(process.pid), server: cpuMs(pids.server) };
  const { intervals: bare, phases: barePhases } = await bareTemporalLoop(address);
  const bareCpuPerTurn = {
    worker: (cpuMs(process.pid) - bareCpuBefore.bench) / ITERATIONS,
    server: (cpuMs(pids.server) - bareCpuBefore.server) / ITERATIONS,
  };

  const input = buildSessionInput(config, {
    goal: 'benchmark: do nothing, many times',
    cwd,
    harness: 'command',
    harnessCommand: 'true',
    routines: ROUTINES,
    maxIterations: ITERATIONS,
  });
  const cpuBefore = { worker: cpuMs(pids.worker), server: cpuMs(pids.server) };
  const started = performance.now();
  const handle = await startGoalSession(client, input);
  const result = await handle.result();
  const sessionWall = performance.now() - started;
  const launcher = childPids(pids.worker);
  const cpuPerTurn = {
    worker: (cpuMs(pids.worker) - cpuBefore.worker) / ITERATIONS,
    server: (cpuMs(pids.server) - cpuBefore.server) / ITERATIONS,
  };
  if (result.iterations !== ITERATIONS) throw new Error(`session ran ${result.iterations} iterations`);
  const history = readJsonFile(join(input.sessionDir, 'state.json'), sessionStateFileSchema).history;
  // The interval from one iteration's start to the next one's start: the harness plus everything around it.
  const intervals: number[] = [];
  for (let i = 1; i < history.length; i++) {
    intervals.push(Date.parse(history[i]?.started_at ?? '') - Date.parse(history[i - 1]?.started_at ?? ''));
  }
  // Where each interval goes: inside the turn's activity (files, launch, the harness) and between two turns.
  const inTurn = history.slice(1).map((h) => Date.parse(h.finished_at) - Date.parse(h.started_at));
  const betweenTurns = history
    .slice(1)
    .map((h, i) => Date.parse(h.started_at) - Date.parse(history[i]?.finished_at ?? h.started_at));
  const phases = historyPhases((await handle.fetchHistory()).events ?? []);
  const rss = peakRssMb(pids.worker);
  const launcherRss = launcher.map((pid) => peakRssMb(pid)).reduce((a, b) => Math.max(a, b), 0);

  const baseP50 = percentile(baseline, 50);
  const baseP99 = percentile(baseline, 99);
  const sesP50 = percentile(intervals, 50);
  const sesP99 = percentile(intervals, 99);
  const plainTotal = baseline.reduce((a, b) => a + b, 0);
  console.log(
    `orchestration overhead — ${ITERATIONS} iterations of a harness that does nothing (\`true\` through the command harness)`,
  );
  console.log(`temporal: dev server ${version} on a SQLite file; worker in its own process`);
  console.log('');
  console.log(`                          p50        p99        total`);
  console.log(
    `plain loop (baseline)     ${ms(baseP50).padEnd(10)} ${ms(baseP99).padEnd(10)} ${ms(plainTotal)}`,
  );
  console.log(
    `bare activity + harness   ${ms(percentile(bare, 50)).padEnd(10)} ${ms(percentile(bare, 99)).padEnd(10)} ${ms(bare.reduce((a, b) => a + b, 0))}`,
  );
  console.log(
    `goal session              ${ms(sesP50).padEnd(10)} ${ms(sesP99).padEnd(10)} ${ms(sessionWall)}`,
  );
  console.log(
    `overhead per iteration    ${ms(sesP50 - baseP50).padEnd(10)} ${ms(sesP99 - baseP99).padEnd(10)} ${ms((sessionWall - plainTotal) / ITERATIONS)} (mean)`,
  );
  console.log(
    `  of which in the turn    ${ms(percentile(inTurn, 50)).padEnd(10)} ${ms(percentile(inTurn, 99)).padEnd(10)} (activity: session files, launch, harness)`,
  );
  console.log(
    `  between turns           ${ms(percentile(betweenTurns, 50)).padEnd(10)} ${ms(percentile(betweenTurns, 99)).padEnd(10)} (Temporal round trip and workflow task)`,
  );
  console.log('  server event times (p50; the bare Temporal loop in brackets):');
  phases.forEach((phase, i) => {
    console.log(
      `    ${phase.name.padEnd(44)} ${ms(phase.p50).padEnd(10)} (${ms(barePhases[i]?.p50 ?? Number.NaN)})`,
    );
  });
  console.log(`ratio session/plain       ${(sesP50 / baseP50).toFixed(2)}x (p50)`);
  const share = sesP50 - percentile(bare, 50);
  console.log(
    `the-loop's own share      ${ms(share)} (p50), ${ms(sesP99 - percentile(bare, 99))} (p99) over the bare Temporal activity loop (goal ≤ 5 ms p50: ${share <= 5 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `worker peak RSS           ${rss.toFixed(0)} MB (its harness launcher: ${launcherRss.toFixed(0)} MB)`,
  );
  console.log(
    `CPU per turn              worker ${ms(cpuPerTurn.worker)}, Temporal server ${ms(cpuPerTurn.server)} (${cpus().length} CPUs)`,
  );
  console.log(
    `  bare Temporal loop      worker ${ms(bareCpuPerTurn.worker)}, Temporal server ${ms(bareCpuPerTurn.server)} (its worker runs in the benchmark process)`,
  );
  console.log(
    `load average              ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
