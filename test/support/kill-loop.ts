// kill -9 a session's worker again and again, restart it each time, and check what the session did.
// Used by the kill-loop integration test and bench/crash-recovery.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { readExit } from '../../src/activities/recover-run';
import { buildSessionInput } from '../../src/cli/session-input';
import { startGoalSession } from '../../src/cli/start-session';
import { parseClaudeStdout } from '../../src/harness/claude-output';
import { procStatFields } from '../../src/harness/process-group';
import { EXIT_FILE } from '../../src/harness/supervisor';
import { harnessRunDir, iterationPaths } from '../../src/session/paths';
import { readJsonIfExists } from '../../src/session/json-file';
import { salvageFileSchema } from '../../src/session/schemas';
import { stopSignal } from '../../src/workflows/goal-session/messages';
import type { GoalSessionResult } from '../../src/workflows/goal-session/types';
import { claudeEnv, startMockAnthropic } from './mock-anthropic';
import {
  endedIterations,
  harnessRuns,
  liveGroup,
  recoveryConfig,
  recoveryConfigObject,
  sessionEvents,
  sessionState,
} from './recovery';
import { after, scriptGoalLoops } from './scripted-agent';
import { spawnWorkerProcess, type WorkerProcess } from './worker-processes';
import { waitFor } from './wait';

export interface KillLoopOptions {
  address: string;
  bundlePath?: string;
  kills: number;
  heartbeatTimeoutMs: number;
  /** How long each turn runs (the mock model holds its reply that long). */
  turnMs: number;
  /**
   * 'random': kill at a random moment after the worker is up (mid-turn, between turns, during a flush…);
   * 'mid-turn': wait for a new harness run to start, then kill at a random point of it.
   */
  mode: 'random' | 'mid-turn';
  seed: number;
  log?: (line: string) => void;
}

export interface KillRecord {
  /** Harness runs started when the worker was killed, and whether one was running. */
  runsAtKill: number;
  midTurn: boolean;
  /** From spawning the replacement worker to the next harness run starting ('mid-turn' mode only). */
  restartToNextTurnMs: number | null;
}

export interface KillLoopReport {
  seed: number;
  kills: KillRecord[];
  iterations: number;
  historyEntries: number;
  lostTurns: number;
  duplicatedTurns: number;
  /** Iterations whose harness was started more than once. */
  turnsRunTwice: number;
  eventGaps: number[];
  abandoned: number;
  /** Abandoned turns whose harness had ended by itself (exit.json with an exit code, no signal from the reaper). */
  abandonedFinished: number;
  /** For each of those: the history entry, its exit.json and its salvage.json, to tell how it happened. */
  abandonedFinishedTurns: string[];
  recovered: number;
  /** Every dollar the harness runs reported on stdout, and what the session recorded (state.json's own usage). */
  reportedCostUsd: number;
  recordedCostUsd: number;
  /** Processes the turns left behind with `setsid env -i` (out of the group, no marker variable): how many ran. */
  escapees: number;
  /** Live processes of the session when it ended: its runs' groups, its marker variable, and the escapees. */
  orphanProcesses: number[];
  stop: GoalSessionResult['stop'];
  wallMs: number;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The cost every harness run of the session printed in its result line (harness_outputs/<iteration>/<run>/stdout.txt). */
function reportedCostUsd(sessionDir: string): number {
  const root = join(sessionDir, 'harness_outputs');
  let sum = 0;
  for (const iteration of existsSync(root) ? readdirSync(root) : []) {
    for (const run of readdirSync(join(root, iteration))) {
      const stdout = join(root, iteration, run, 'stdout.txt');
      if (!existsSync(stdout)) continue;
      sum += parseClaudeStdout(readFileSync(stdout, 'utf8'))?.total_cost_usd ?? 0;
    }
  }
  return sum;
}

/** Running, not a zombie (PID 1 here does not reap). */
function isLive(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/** Live processes still carrying this session's directory in their environment (escaped or not). */
export function sessionProcesses(sessionDir: string): number[] {
  const marker = `LOOPY_SESSION_DIR=${sessionDir}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const state = procStatFields(entry)?.[0];
      if (state === undefined || state === 'Z') continue; // gone, or a zombie
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker))
        found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

export async function runKillLoop(options: KillLoopOptions): Promise<KillLoopReport> {
  const log = options.log ?? (() => undefined);
  const random = mulberry32(options.seed);
  const started = Date.now();
  // The workers run the real claude against this mock, whose model takes turnMs over each turn.
  const mock = await startMockAnthropic();
  // Every turn also leaves a process behind that neither its process group nor the marker scan can find (its Bash
  // tool double-forks into a session of its own with an emptied environment); it writes its pid into escapeesDir.
  const escapeesDir = mkdtempSync(join(tmpdir(), 'loopy-killloop-escapees-'));
  const escape = `( setsid env -i /bin/sh -c 'echo $$ > "$0/$$.pid"; exec /bin/sleep 600' ${escapeesDir} </dev/null >/dev/null 2>&1 & )`;
  scriptGoalLoops(mock, () => ({ until: after(options.turnMs), costUsd: 0.01, bash: escape }));
  const workerEnv = { ...process.env, ...claudeEnv(mock, { allowedTools: ['Bash'] }).env };
  const taskQueue = `killloop-${options.seed}-${Date.now().toString(36)}`;
  const hostId = 'killhost';
  const config = {
    taskQueue,
    hostId,
    heartbeatTimeout: `${options.heartbeatTimeoutMs}ms`,
    maxConsecutiveFailures: 1000,
    address: options.address,
  };
  const spawnWorker = (): WorkerProcess =>
    spawnWorkerProcess({
      address: options.address,
      taskQueue,
      hostId,
      ...(options.bundlePath ? { bundlePath: options.bundlePath } : {}),
      config: recoveryConfigObject(config),
      env: workerEnv,
    });
  const input = buildSessionInput(recoveryConfig(config), {
    goal: 'survive a kill loop',
    cwd: mkdtempSync(join(tmpdir(), 'loopy-killloop-')),
    harness: 'claude',
  });
  const runsNow = () => harnessRuns(input.sessionDir);
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection, namespace: 'default' });
  let worker = spawnWorker();
  const kills: KillRecord[] = [];
  try {
    await worker.ready;
    const handle = await startGoalSession(client, input);
    for (let k = 0; k < options.kills; k++) {
      if (options.mode === 'mid-turn') {
        const before = runsNow().length;
        await waitFor('a new turn', () => runsNow().length > before, 120_000, 20);
        await sleep(Math.floor(random() * options.turnMs * 0.8));
      } else {
        // Half of the kills wait for the session to make progress first; the others may land while the
        // replacement is still recovering the previous crash.
        if (random() < 0.5) {
          const before = runsNow().length;
          await waitFor('a new turn', () => runsNow().length > before, 120_000, 20);
        }
        await sleep(Math.floor(random() * (options.turnMs * 1.5 + 500)));
      }
      const runs = runsNow();
      const last = runs.at(-1);
      const midTurn = last !== undefined && liveGroup(last.pgid).length > 0;
      worker.kill('SIGKILL');
      await worker.exited;
      const restartAt = Date.now();
      worker = spawnWorker();
      await worker.ready;
      const record: KillRecord = { runsAtKill: runs.length, midTurn, restartToNextTurnMs: null };
      kills.push(record);
      if (options.mode === 'random') {
        log(`kill ${k + 1}/${options.kills}: ${midTurn ? 'mid-turn' : 'between turns'}`);
        continue;
      }
      const next = await waitFor(
        'the next turn after a restart',
        () => runsNow()[runs.length],
        options.heartbeatTimeoutMs + 120_000,
        20,
      );
      record.restartToNextTurnMs = Math.round(next.startedAt - restartAt);
      log(
        `kill ${k + 1}/${options.kills}: ${midTurn ? 'mid-turn' : 'between turns'}, next turn ${record.restartToNextTurnMs} ms after the restart`,
      );
    }
    await handle.signal(stopSignal, { reason: 'kill loop done', by: 'kill-loop' });
    const result = (await handle.result()) as GoalSessionResult;

    const state = sessionState(input.sessionDir);
    const history = state?.history ?? [];
    const numbers = history.map((h) => h.iteration);
    const distinct = new Set(numbers);
    const expected = Array.from({ length: result.iterations }, (_, i) => i + 1);
    const lostTurns = expected.filter((n) => !distinct.has(n)).length;
    const perDir = new Map<string, number>();
    for (const r of runsNow()) perDir.set(r.iteration, (perDir.get(r.iteration) ?? 0) + 1);
    // A turn is lost, too, when history has it but neither result.json nor an abandonment records it.
    const unaccounted = history.filter((h) => {
      const paths = iterationPaths(input.sessionDir, h.iteration, h.routine_id);
      return !existsSync(paths.result) && !(h.error ?? '').startsWith('abandoned');
    }).length;
    const runDirOf = (h: (typeof history)[number]) =>
      harnessRunDir(input.sessionDir, h.iteration, h.routine_id, h.harness_run_id ?? '-');
    // The real claude, SIGTERMed by the reaper mid-turn, exits 0 with a result line: a run the reaper signalled did
    // not end by itself, whatever its exit code.
    const signalledByReaper = (h: (typeof history)[number]) =>
      (
        readJsonIfExists(
          iterationPaths(input.sessionDir, h.iteration, h.routine_id).salvage,
          salvageFileSchema,
        )?.reports ?? []
      ).some((r) => r.harness_run_id === h.harness_run_id && r.action !== 'none');
    const abandonedFinished = history.filter((h) => {
      if (!(h.error ?? '').startsWith('abandoned') || !h.harness_run_id || signalledByReaper(h)) return false;
      return (readExit(runDirOf(h))?.code ?? null) !== null;
    });
    const ended = endedIterations(sessionEvents(input.sessionDir));
    const endedSet = new Set(ended);
    await sleep(200);
    const orphans = new Set<number>(sessionProcesses(input.sessionDir));
    for (const r of runsNow()) for (const pid of liveGroup(r.pgid)) orphans.add(pid);
    const escapees = readdirSync(escapeesDir).map((file) => Number(file.replace(/\.pid$/, '')));
    for (const pid of escapees) if (isLive(pid)) orphans.add(pid);
    return {
      seed: options.seed,
      kills,
      iterations: result.iterations,
      historyEntries: history.length,
      lostTurns: lostTurns + unaccounted,
      duplicatedTurns: numbers.length - distinct.size,
      turnsRunTwice: [...perDir.values()].filter((n) => n > 1).length,
      eventGaps: expected.filter((n) => !endedSet.has(n)),
      abandoned: history.filter((h) => (h.error ?? '').startsWith('abandoned')).length,
      abandonedFinished: abandonedFinished.length,
      abandonedFinishedTurns: abandonedFinished.map((h) =>
        JSON.stringify({
          entry: h,
          exit: readText(join(runDirOf(h), EXIT_FILE)),
          salvage: readText(iterationPaths(input.sessionDir, h.iteration, h.routine_id).salvage),
        }),
      ),
      recovered: history.filter((h) => h.recovered).length,
      reportedCostUsd: reportedCostUsd(input.sessionDir),
      recordedCostUsd: state?.usage.own.cost_usd ?? 0,
      escapees: escapees.length,
      orphanProcesses: [...orphans],
      stop: result.stop,
      wallMs: Date.now() - started,
    };
  } finally {
    worker.kill('SIGKILL');
    await worker.exited;
    await connection.close();
    await mock.close();
  }
}

export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
