/**
 * One worker's limits: N concurrent goal sessions whose harness sleeps (live turns). At each N it measures the
 * worker's and the launcher's RSS, all of it with the harnesses and the dev server (PSS), the CPU of worker, launcher
 * and dev server, and the latency from a pause, resume or stop signal to the change being visible (the live `status`
 * query, and state.json, for pause; the query for resume; the workflow closed for stop, which kills the running
 * turn). The first row is the idle baseline: only the sampled sessions. Goals (issue 28): pause in state.json p99
 * ≤ 100 ms at 1,000 live turns; at 5,000 (`--sizes 5000`), ≤ 4 GB all-in and p99 ≤ 250 ms.
 *
 *   npm run build && node dist/bench/scale.js [--sizes 100,500,1000] [--sample 20] [--cpu-window-ms 10000]
 *
 * Starts its own dev server (throw-away SQLite file) and one worker process with the-loop.yaml's default worker
 * limits, but for activity slots (the largest size plus 500) and, past 2,000, the heartbeat timeout (2 minutes), as
 * docs/operations.md advises. Prints figures and ratios; never a timed test.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { buildSessionInput } from '../src/cli/session-input';
import { startGoalSession } from '../src/cli/start-session';
import { configSchema } from '../src/config/schema';
import { procStatFields } from '../src/harness/process-group';
import { sessionStateFileSchema } from '../src/session/schemas/state';
import { stopProcess } from '../src/service/dev-server';
import { startScratchDevServer } from '../test/support/dev-server';
import { resolveTemporalCli } from '../src/service/resolve-cli';
import { pauseSignal, resumeSignal, statusQuery, stopSignal } from '../src/workflows/goal-session/messages';
import { harnessRuns, SLEEPING_HARNESS } from '../test/support/recovery';
import { assertFreshBuild, spawnWorkerProcess } from '../test/support/worker-processes';
import { percentile } from './stats';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const TICKS_PER_S = 100;

function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Proportional set size of a process and all its descendants, in MB: shared pages counted once overall. */
function treePssMb(rootPid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(procStatFields(entry)?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  let kb = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return kb / 1024;
}

function cpuTicks(pid: number): number {
  const fields = procStatFields(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : Number.NaN;
}

function machineTicks(): { busy: number; total: number } {
  const cpu =
    readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

/** The worker's child running launcher-main.js. */
function launcherOf(workerPid: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (procStatFields(entry)?.[1] !== String(workerPid)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('launcher-main')) return Number(entry);
    } catch {
      // gone
    }
  }
  return null;
}

/** Percent of one core each process used over the window, and the machine's busy share. */
async function cpuOver(pids: Record<string, number | null>, windowMs: number) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, p ? cpuTicks(p) : Number.NaN]));
  const m0 = machineTicks();
  await sleep(windowMs);
  const m1 = machineTicks();
  const out: Record<string, number> = {};
  for (const [k, p] of Object.entries(pids)) {
    out[k] = p ? ((cpuTicks(p) - (before[k] ?? 0)) / TICKS_PER_S / (windowMs / 1000)) * 100 : Number.NaN;
  }
  out.machine = ((m1.busy - m0.busy) / (m1.total - m0.total)) * 100;
  return out;
}

/** state.json says the session is paused (a torn read is not yet). */
function pausedOnDisk(stateFile: string): boolean {
  try {
    return sessionStateFileSchema.parse(JSON.parse(readFileSync(stateFile, 'utf8'))).dispatch.paused;
  } catch {
    return false;
  }
}

async function timeUntil(probe: () => Promise<boolean>, limitMs = 120_000): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > limitMs) return Number.NaN;
    await sleep(5);
  }
  return performance.now() - started;
}

interface Row {
  n: number;
  workerMb: number;
  launcherMb: number;
  serverMb: number;
  /** The worker with everything under it (launcher, supervisors, harnesses) and the dev server, by PSS. */
  allInMb: number;
  cpu: Record<string, number>;
  pause: number[];
  /** From the pause signal to state.json saying so: what `loopy status`, the board and the inbox read. */
  pauseFile: number[];
  resume: number[];
  stop: number[];
  load: number;
}

async function main(): Promise<void> {
  assertFreshBuild();
  const sizes = arg('sizes', '100,500,1000').split(',').map(Number);
  const sample = Number(arg('sample', '20'));
  const cpuWindowMs = Number(arg('cpu-window-ms', '10000'));
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-scale-'));
  const cli = await resolveTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const server = await startScratchDevServer({ cliPath: cli.path, dir });
  const taskQueue = `scale-${Date.now().toString(36)}`;
  // docs/operations.md's advice: activity slots for the planned live turns plus a margin (the default 2,000 caps a
  // host at that many live turns) and, past 2,000 live turns, a 2-minute heartbeat timeout (the default's heartbeats,
  // one every 10 s a turn, would keep the server busy); every other worker limit at its default.
  const largest = Math.max(...sizes);
  const maxConcurrentActivityTaskExecutions = Math.max(2000, largest + 500);
  const heartbeatTimeout = largest > 2000 ? '2m' : '30s';
  // Past the default cache of 1,000 workflows, room for every live session: one outside it is replayed from its
  // history whenever a signal (a pause) reaches it.
  const maxCachedWorkflows = Math.max(1000, largest > 1000 ? largest + 500 : 0);
  const configObject = {
    temporal: { taskQueue },
    worker: {
      hostId: 'scalehost',
      maxConcurrentActivityTaskExecutions,
      heartbeatTimeout,
      maxCachedWorkflows,
    },
    // Hundreds of live turns at once: a stand-in that sleeps (see the script), not hundreds of real claude processes.
    harness: { claude: { command: SLEEPING_HARNESS } },
  };
  const config = configSchema.parse(configObject);
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} },
  });
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);
  console.log(
    `worker settings: maxConcurrentActivityTaskExecutions ${maxConcurrentActivityTaskExecutions}, heartbeatTimeout ${heartbeatTimeout}, maxCachedWorkflows ${maxCachedWorkflows}, the rest the-loop.yaml's defaults`,
  );
  const worker = spawnWorkerProcess({
    address: server.address,
    taskQueue,
    hostId: 'scalehost',
    bundlePath,
    config: configObject,
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  const live: string[] = [];
  let started = 0;
  const rows: Row[] = [];
  const cwd = mkdtempSync(join(tmpdir(), 'scale-sessions-'));
  const sessionsDir = join(cwd, '.loopy_loop', 'sessions');
  // none until the first session's set-up has made the directory
  const runs = () =>
    existsSync(sessionsDir)
      ? readdirSync(sessionsDir, { withFileTypes: true }).flatMap((d) =>
          d.isDirectory() ? harnessRuns(join(sessionsDir, d.name)) : [],
        )
      : [];
  try {
    await worker.ready;
    const grow = async (target: number) => {
      const want = target - live.length;
      const queue = Array.from({ length: want }, (_v, i) => i);
      await Promise.all(
        Array.from({ length: 25 }, async () => {
          while (queue.shift() !== undefined) {
            const input = buildSessionInput(config, {
              goal: `scale session ${started++}`,
              cwd,
              harness: 'claude',
              maxIterations: 1000,
            });
            await startGoalSession(client, input);
            live.push(input.sessionId);
          }
        }),
      );
      // Every session's turn is running once its harness has started (its process.json is written).
      const deadline = Date.now() + 30 * 60_000;
      while (runs().length < started) {
        if (Date.now() > deadline) throw new Error(`only ${runs().length} of ${started} turns started`);
        await sleep(500);
      }
    };

    for (const n of [sample, ...sizes]) {
      const t0 = Date.now();
      await grow(n);
      process.stderr.write(`  ${n} live turns (${((Date.now() - t0) / 1000).toFixed(0)} s to start)\n`);
      await sleep(2000);
      const launcher = launcherOf(worker.pid);
      const cpu = await cpuOver({ worker: worker.pid, launcher, server: server.pid }, cpuWindowMs);
      const row: Row = {
        n: live.length,
        workerMb: rssMb(worker.pid),
        launcherMb: launcher ? rssMb(launcher) : Number.NaN,
        serverMb: rssMb(server.pid),
        allInMb: treePssMb(worker.pid) + treePssMb(server.pid),
        cpu,
        pause: [],
        pauseFile: [],
        resume: [],
        stop: [],
        load: loadavg()[0] ?? Number.NaN,
      };
      for (const id of live.slice(0, sample)) {
        const handle = client.workflow.getHandle(id);
        const stateFile = join(sessionsDir, id, 'state.json');
        // From before the signal is sent: what a user who pauses waits for.
        const signalled = performance.now();
        await handle.signal(pauseSignal);
        const sending = performance.now() - signalled;
        const [inQuery, inFile] = await Promise.all([
          timeUntil(async () => (await handle.query(statusQuery)).dispatch.paused),
          timeUntil(async () => pausedOnDisk(stateFile)),
        ]);
        row.pause.push(sending + inQuery);
        row.pauseFile.push(sending + inFile);
        await handle.signal(resumeSignal);
        row.resume.push(await timeUntil(async () => !(await handle.query(statusQuery)).dispatch.paused));
      }
      // Stop reaches the running turn (its harness is killed) and ends the session; replaced at the next size.
      for (const id of live.splice(live.length - Math.min(5, sample), Math.min(5, sample))) {
        const handle = client.workflow.getHandle(id);
        await handle.signal(stopSignal, { reason: 'bench', by: 'bench' });
        row.stop.push(await timeUntil(async () => (await handle.describe()).status.name !== 'RUNNING'));
      }
      rows.push(row);
      const f = (v: number) => v.toFixed(0);
      console.log(
        `N=${row.n}: worker ${f(row.workerMb)} MB, launcher ${f(row.launcherMb)} MB, dev server ${f(row.serverMb)} MB, ` +
          `all-in ${f(row.allInMb)} MB PSS${row.n >= 5000 ? ` (goal ≤ 4096 MB: ${row.allInMb <= 4096 ? 'met' : 'MISSED'})` : ''}; ` +
          `CPU worker ${f(cpu.worker ?? 0)}%, launcher ${f(cpu.launcher ?? 0)}%, server ${f(cpu.server ?? 0)}% of a core, machine ${f(cpu.machine ?? 0)}% busy; ` +
          `pause p50 ${f(percentile(row.pause, 50))} ms p99 ${f(percentile(row.pause, 99))} ms (live status), ` +
          `in state.json p50 ${f(percentile(row.pauseFile, 50))} ms p99 ${f(percentile(row.pauseFile, 99))} ms${row.n >= 1000 ? ` (goal at ${row.n}: p99 ≤ ${row.n >= 5000 ? 250 : 100} ms: ${percentile(row.pauseFile, 99) <= (row.n >= 5000 ? 250 : 100) ? 'met' : 'MISSED'})` : ''}, ` +
          `resume p50 ${f(percentile(row.resume, 50))} ms p99 ${f(percentile(row.resume, 99))} ms, ` +
          `stop→closed p50 ${f(percentile(row.stop, 50))} ms p99 ${f(percentile(row.stop, 99))} ms; load ${row.load.toFixed(1)}`,
      );
    }
    const idle = rows[0] as Row;
    console.log('ratios against the idle row:');
    for (const row of rows.slice(1)) {
      const perSession = (a: number, b: number) => ((a - b) / (row.n - idle.n)).toFixed(2);
      console.log(
        `  N=${row.n}: worker +${perSession(row.workerMb, idle.workerMb)} MB/session, launcher +${perSession(row.launcherMb, idle.launcherMb)} MB/session, ` +
          `server +${perSession(row.serverMb, idle.serverMb)} MB/session; worker CPU ${((row.cpu.worker ?? 0) / Math.max(1, row.n)).toFixed(3)}% of a core per live turn; ` +
          `pause p99 ×${(percentile(row.pause, 99) / percentile(idle.pause, 99)).toFixed(1)}, stop p99 ×${(percentile(row.stop, 99) / percentile(idle.stop, 99)).toFixed(1)}; ` +
          `worker+launcher ${(row.workerMb + row.launcherMb).toFixed(0)} MB`,
      );
    }
  } finally {
    await Promise.all(
      live.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('bench over')
          .catch(() => undefined),
      ),
    );
    for (const run of runs()) {
      try {
        process.kill(-run.pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    worker.kill('SIGKILL');
    await worker.exited;
    await connection.close();
    await stopProcess(server.pid, 5000);
    // thousands of session files a run: left behind, they slowed the next runs' file creation (README, Performance)
    rmSync(cwd, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`scale: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
