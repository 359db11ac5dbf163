/**
 * A long goal session: is a turn, `loopy status` and `loopy events` as quick at turn 5,000 as at turn 10? One
 * session of a harness that does nothing (`true` through the command harness) runs `--turns` turns (continuing as
 * new as it goes) on a dev server of its own, its worker in its own process. While it runs, `loopy status` and
 * `loopy events` are timed as a user runs them (bin/loopy, a process each) early on and near the end; the
 * per-turn interval is compared between an early window of 100 turns and the last 100. The early figures are the
 * baseline: flat means each late figure is at most 1.1 times its early one.
 *
 *   npm run build && node dist/bench/long-session.js [--turns 5000]
 *
 * Prints figures; never a timed test.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../src/cli/session-input';
import { startGoalSession } from '../src/cli/start-session';
import { configSchema } from '../src/config/schema';
import { readJsonl, readLastJsonl } from '../src/session/jsonl';
import { sessionPaths } from '../src/session/paths';
import { sessionEventSchema } from '../src/session/schemas/event';
import { procStatFields } from '../src/harness/process-group';
import { startScratchService } from './scratch-service';
import { ms, percentile } from './stats';

const TURNS = (() => {
  const i = process.argv.indexOf('--turns');
  const n = i >= 0 ? Number(process.argv[i + 1]) : 5000;
  if (Number.isInteger(n) && n >= 1000) return n;
  // its windows (turns 61-161 early, the last 400 late) need at least this many
  console.error(`long-session: --turns must be a whole number of at least 1000, not ${process.argv[i + 1]}`);
  process.exit(2);
})();
/**
 * How many times each command is timed at each point (the median is reported): at 3, one slow run of `loopy events`
 * (a wall time moved 10% by the machine alone) was enough to call a flat command not flat.
 */
const SAMPLES = 5;
const WINDOW = 100;
const FLAT = 1.1;

const ROUTINES = [
  {
    id: 'noop',
    prompt: 'do nothing ({iteration})',
    harness_options: {},
    emits_goal_check: false,
    when: { default: true as const },
  },
];

const BIN = resolve(__dirname, '..', '..', 'bin');

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * Wall and CPU time (user plus system, its own and its children's, as bash's \`time\` counts it) of one CLI command,
 * run as a user runs it: a process of its own, output read and dropped. The CPU time is what other work on the
 * machine changes least.
 */
function timeCommand(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ wall: number; cpu: number }> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(
      'bash',
      ['-c', 'TIMEFORMAT="%3U %3S"; time "$0" "$@" >/dev/null 2>&1', join(BIN, 'loopy'), ...args],
      { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      const wall = performance.now() - started;
      const [user, system] = (stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
      if (code === 0 && user !== undefined && system !== undefined)
        done({ wall, cpu: (user + system) * 1000 });
      else fail(new Error(`loopy ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** User plus system CPU time of a process so far (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = procStatFields(pid) ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface CliSample {
  /** The turn the session was on when the first command started, and when the last one ended. */
  fromTurn: number;
  toTurn: number;
  status: number;
  events: number;
  statusCpu: number;
  eventsCpu: number;
  stateBytes: number;
  eventsBytes: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-'));
  const taskQueue = 'bench-long';
  const service = await startScratchService(dir, taskQueue);
  // the CLI's commands see what the worker sees
  const env = {
    ...process.env,
    THE_LOOP_CONFIG: service.configFile,
    THE_LOOP_STATE_DIR: service.stateDir,
    TEMPORAL_ADDRESS: '',
  };
  try {
    await measure(service.address, service.version, dir, taskQueue, env, service.pids);
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
  env: NodeJS.ProcessEnv,
  pids: { worker: number; server: number },
): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const config = configSchema.parse({ temporal: { taskQueue }, worker: { hostId: 'bench' } });
  const cwd = join(dir, 'work');
  mkdirSync(cwd);
  const input = buildSessionInput(config, {
    goal: 'benchmark: a long session of turns that do nothing',
    cwd,
    harness: 'command',
    harnessCommand: 'true',
    routines: ROUTINES,
    maxIterations: TURNS,
  });
  const paths = sessionPaths(input.sessionDir);
  // The session's progress from the last line of events.jsonl: read from the end, so polling costs the same throughout.
  const turn = () => readLastJsonl(paths.events, sessionEventSchema)?.iteration ?? 0;
  const reach = async (n: number) => {
    while (turn() < n) await new Promise((r) => setTimeout(r, 50));
  };
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  const sample = async (): Promise<CliSample> => {
    const fromTurn = turn();
    const status: { wall: number; cpu: number }[] = [];
    const events: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      status.push(await timeCommand(['status', input.sessionId], cwd, env));
      events.push(await timeCommand(['events', input.sessionId], cwd, env));
    }
    const median = (samples: { wall: number; cpu: number }[], of: 'wall' | 'cpu') =>
      percentile(
        samples.map((s) => s[of]),
        50,
      );
    return {
      fromTurn,
      toTurn: turn(),
      status: median(status, 'wall'),
      events: median(events, 'wall'),
      statusCpu: median(status, 'cpu'),
      eventsCpu: median(events, 'cpu'),
      stateBytes: size(paths.state),
      eventsBytes: size(paths.events),
    };
  };

  // The worker's first session pays for loading the workflow bundle: a few warm-up turns first.
  const warm = buildSessionInput(config, {
    goal: 'warm up',
    cwd,
    harness: 'command',
    harnessCommand: 'true',
    routines: ROUTINES,
    maxIterations: 3,
  });
  await (await startGoalSession(client, warm)).result();

  const started = performance.now();
  const handle = await startGoalSession(client, input);
  // CPU per turn over a window: less at the mercy of other work on the machine than the wall clock.
  const cpu = () => ({ worker: cpuMs(pids.worker), server: cpuMs(pids.server), turn: turn() });
  const perTurn = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) => ({
    worker: (b.worker - a.worker) / (b.turn - a.turn),
    server: (b.server - a.server) / (b.turn - a.turn),
  });
  await reach(10);
  const early = await sample();
  // The early window starts once the early commands are done, so that neither window shares the CPU with them.
  const earlyFrom = early.toTurn + 10;
  await reach(earlyFrom);
  const earlyCpuFrom = cpu();
  await reach(earlyFrom + WINDOW);
  const earlyCpu = perTurn(earlyCpuFrom, cpu());
  // Sampled a few hundred turns before the end, so that the commands do not slow the last 100 turns measured.
  await reach(TURNS - 4 * WINDOW);
  const late = await sample();
  await reach(TURNS - WINDOW);
  const lateCpuFrom = cpu();
  const result = await handle.result();
  const lateCpu = perTurn(lateCpuFrom, { ...cpu(), turn: TURNS });
  const wall = performance.now() - started;
  if (result.iterations !== TURNS) throw new Error(`session ran ${result.iterations} turns`);

  // Each turn's start, as the workflow stamped its iteration_started event: the interval is everything a turn costs.
  const starts = new Map<number, number>();
  for (const event of readJsonl(paths.events, sessionEventSchema)) {
    if (event.type === 'iteration_started' && event.iteration !== undefined)
      starts.set(event.iteration, Date.parse(event.ts));
  }
  const intervals = (from: number, to: number): number[] => {
    const out: number[] = [];
    for (let n = from + 1; n <= to; n++) {
      const a = starts.get(n - 1);
      const b = starts.get(n);
      if (a !== undefined && b !== undefined) out.push(b - a);
    }
    return out;
  };
  const earlyTurns = intervals(earlyFrom, earlyFrom + WINDOW);
  const lateTurns = intervals(TURNS - WINDOW, TURNS);
  const runs = await countRuns(client, input.sessionId);

  const ratio = (late: number, early: number) => {
    const r = late / early;
    return `${r.toFixed(2)}x ${r <= FLAT ? '(flat)' : `(over ${FLAT}x)`}`;
  };
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  console.log(`long session — ${TURNS} turns of \`true\` through the command harness, one goal session`);
  console.log(
    `temporal: dev server ${version} on a SQLite file; worker in its own process; ${runs} workflow runs (continue-as-new)`,
  );
  console.log(`flat: each late figure at most ${FLAT}x its early one (the baseline)`);
  console.log('');
  console.log(`${''.padEnd(20)}${'early (baseline)'.padEnd(28)}${'late'.padEnd(28)}late/early`);
  const row = (name: string, a: string, b: string, r: string) =>
    console.log(`${name.padEnd(20)}${a.padEnd(28)}${b.padEnd(28)}${r}`);
  row(
    'turn interval p50',
    `${ms(percentile(earlyTurns, 50))} (turns ${earlyFrom}-${earlyFrom + WINDOW})`,
    `${ms(percentile(lateTurns, 50))} (turns ${TURNS - WINDOW}-${TURNS})`,
    ratio(percentile(lateTurns, 50), percentile(earlyTurns, 50)),
  );
  row(
    'turn interval p99',
    ms(percentile(earlyTurns, 99)),
    ms(percentile(lateTurns, 99)),
    ratio(percentile(lateTurns, 99), percentile(earlyTurns, 99)),
  );
  row('worker CPU a turn', ms(earlyCpu.worker), ms(lateCpu.worker), ratio(lateCpu.worker, earlyCpu.worker));
  row('server CPU a turn', ms(earlyCpu.server), ms(lateCpu.server), ratio(lateCpu.server, earlyCpu.server));
  row(
    'loopy status',
    `${ms(early.status)} (turn ${early.fromTurn})`,
    `${ms(late.status)} (turn ${late.fromTurn})`,
    ratio(late.status, early.status),
  );
  row('  its CPU time', ms(early.statusCpu), ms(late.statusCpu), ratio(late.statusCpu, early.statusCpu));
  row(
    'loopy events',
    `${ms(early.events)} (turn ${early.fromTurn})`,
    `${ms(late.events)} (turn ${late.fromTurn})`,
    ratio(late.events, early.events),
  );
  row('  its CPU time', ms(early.eventsCpu), ms(late.eventsCpu), ratio(late.eventsCpu, early.eventsCpu));
  row('state.json', kb(early.stateBytes), kb(late.stateBytes), '');
  row('events.jsonl', kb(early.eventsBytes), kb(late.eventsBytes), '');
  console.log(
    `commands timed       median of ${SAMPLES} each, while the session ran (a process each, bin/loopy; CPU: user + system)`,
  );
  console.log(`session wall         ${(wall / 1000).toFixed(1)} s (${ms(wall / TURNS)} a turn, mean)`);
  console.log(`load average         ${load()} (${cpus().length} CPUs)`);
  await connection.close();
}

/** How many runs the session's workflow took: each continue-as-new starts one more. */
async function countRuns(client: Client, workflowId: string): Promise<number> {
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs += 1;
  return runs;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
