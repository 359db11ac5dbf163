import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { isProcessGroupAlive } from '../harness/process-group';
import type { IterationPaths } from '../session/paths';
import type { ActivityDeps } from './deps';
import {
  PROCESS_RECORD,
  processStartTicks,
  trackedRuns,
  type ProcessRecord,
  type TrackedRun,
} from './orphans';

const POLL_MS = 500;
const HEARTBEAT_EVERY_MS = 1000;
/** Past the iteration timeout, what the run's worker takes to kill it (the adapters' kill grace, and some). */
const KILL_GRACE_MS = 30_000;

let self: ProcessRecord['worker'] | undefined;

/** This worker process, as process.json records the worker that spawned a run. */
export function thisWorker(): ProcessRecord['worker'] {
  if (self === undefined) {
    const ticks = processStartTicks(process.pid);
    self = ticks === null ? undefined : { pid: process.pid, start_ticks: ticks };
  }
  return self;
}

/** The worker process still runs: its pid is alive and was started when the record says (no reused pid). */
function workerLives(worker: NonNullable<ProcessRecord['worker']>): boolean {
  return processStartTicks(worker.pid) === worker.start_ticks;
}

/**
 * A run of this host whose worker lives and whose harness still runs, within the iteration timeout (counted from its
 * process.json, written at spawn): no orphan, but a turn still under way. A run past its timeout has a worker that
 * no longer enforces it (stopped, or hung), and is reaped.
 */
function runOfALiveWorker(run: TrackedRun, hostId: string, timeoutMs: number): boolean {
  if (run.host !== hostId || run.worker == null || !workerLives(run.worker)) return false;
  let spawnedAt: number;
  try {
    spawnedAt = statSync(join(run.outputDir, PROCESS_RECORD)).mtimeMs;
  } catch {
    return false;
  }
  return Date.now() < spawnedAt + timeoutMs + KILL_GRACE_MS && isProcessGroupAlive(run.pgid);
}

/**
 * The server gave up on an earlier attempt (its heartbeats did not reach a Temporal that was restarting or
 * unreachable) while its worker lives and still runs the harness (runWatched hands the run over instead of killing
 * it). That run is no orphan: it ends by itself, within the iteration timeout its worker enforces, and leaves its
 * verdict and output on disk (its supervisor writes them, whatever becomes of the worker). So a retry waits for it to end, heartbeating, and then recovers the turn from what it
 * left, where reaping it would abandon a healthy turn. The wait ends early when this attempt is cancelled (a stop:
 * the run is then reaped as usual), the run's worker dies (then it is an orphan after all) or the run outlives its
 * iteration timeout.
 */
export async function awaitRunsOfLiveWorkers(
  deps: Pick<ActivityDeps, 'hostId'>,
  paths: IterationPaths,
  turn: { iteration: number; timeoutMs: number },
  heartbeat: unknown,
): Promise<void> {
  const ctx = Context.current();
  const { iteration, timeoutMs } = turn;
  const live = () =>
    trackedRuns(paths.harnessOutputRoot, heartbeat).filter((r) =>
      runOfALiveWorker(r, deps.hostId, timeoutMs),
    );
  const first = live();
  if (first.length === 0) return;
  ctx.log.warn(
    `iteration ${iteration}: the earlier attempt's harness still runs under its worker (pid ${first
      .map((r) => r.worker?.pid)
      .join(', ')}): waiting for it to end, to recover the turn from what it leaves`,
  );
  let beat = 0;
  while (!ctx.cancellationSignal.aborted && live().length > 0) {
    if (Date.now() - beat >= HEARTBEAT_EVERY_MS) {
      // the earlier attempt's details: if this attempt dies too, the next one still knows the run
      ctx.heartbeat(heartbeat);
      beat = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
