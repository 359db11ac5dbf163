// Shared by the crash-recovery integration tests and the benchmarks.
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configSchema, type TheLoopConfig } from '../../src/config/schema';
import { liveProcessGroupMembers } from '../../src/harness/process-group';
import { readJsonIfExists } from '../../src/session/json-file';
import { readJsonl } from '../../src/session/jsonl';
import { iterationPaths } from '../../src/session/paths';
import { sessionEventSchema, sessionStateFileSchema, type SessionEvent } from '../../src/session/schemas';
import { realClaudeBin } from './mock-anthropic';
import { waitFor } from './wait';

// Scripts in test/support/bin are not copied to dist/: find them from either tree.
const ROOT = resolve(__dirname, '..', '..');
const REPO = existsSync(join(ROOT, 'package.json')) ? ROOT : resolve(ROOT, '..');
/** See the script: a harness that ignores SIGTERM, which no real agent CLI does. */
export const SIGTERM_IGNORING_HARNESS = join(REPO, 'test', 'support', 'bin', 'sigterm-ignoring-harness');
/** See the script: a harness that leaves a process behind with setsid and env -i, for the containment tests. */
export const ESCAPING_HARNESS = join(REPO, 'test', 'support', 'bin', 'escaping-harness');
/** See the script: a harness that only sleeps, for the benchmark that keeps hundreds of turns live at once. */
export const SLEEPING_HARNESS = join(REPO, 'test', 'support', 'bin', 'sleeping-harness');

export interface RecoveryConfigOptions {
  taskQueue: string;
  hostId: string;
  heartbeatTimeout: string;
  maxConsecutiveFailures?: number;
  address?: string;
  /** The claude harness's executable: the real CLI unless a test needs a stand-in. */
  claudeCommand?: string;
}

/** A the-loop.yaml object for a worker process and the session input built against it. */
export function recoveryConfigObject(options: RecoveryConfigOptions): Record<string, unknown> {
  return {
    temporal: { taskQueue: options.taskQueue, ...(options.address ? { address: options.address } : {}) },
    worker: { hostId: options.hostId, heartbeatTimeout: options.heartbeatTimeout },
    harness: { claude: { command: options.claudeCommand ?? realClaudeBin() } },
    session: { maxConsecutiveFailures: options.maxConsecutiveFailures ?? 3 },
  };
}

export function recoveryConfig(options: RecoveryConfigOptions): TheLoopConfig {
  return configSchema.parse(recoveryConfigObject(options));
}

export interface HarnessRun {
  /** The iteration's directory name (0001_planner). */
  iteration: string;
  /** The run's process group, led by the harness's supervisor. */
  pgid: number;
  startedAt: number;
}

/** Every harness run of the session, oldest first, from the process.json each one wrote when it was spawned. */
export function harnessRuns(sessionDir: string): HarnessRun[] {
  const root = join(sessionDir, 'harness_outputs');
  const runs: HarnessRun[] = [];
  for (const iteration of existsSync(root) ? readdirSync(root) : []) {
    for (const run of readdirSync(join(root, iteration))) {
      const file = join(root, iteration, run, 'process.json');
      try {
        const { pgid } = JSON.parse(readFileSync(file, 'utf8')) as { pgid: number };
        runs.push({ iteration, pgid, startedAt: statSync(file).mtimeMs });
      } catch {
        // not written yet
      }
    }
  }
  return runs.sort((a, b) => a.startedAt - b.startedAt);
}

export interface StartedRun {
  /** The run's process group, led by the harness's supervisor (the process that process.json and salvage.json name). */
  group: number;
  /** The harness executable's own process, a member of that group. */
  harness: number;
}

/**
 * Waits until the harness of `iteration` runs: its process.json is written and a member of its group runs
 * `executable` (the real claude by default). Pass the run id to wait for one attempt in particular.
 */
export async function harnessStarted(
  sessionDir: string,
  iteration: number,
  routineId: string,
  options: { executable?: string; timeoutMs?: number; runId?: string } = {},
): Promise<StartedRun> {
  const root = iterationPaths(sessionDir, iteration, routineId).harnessOutputRoot;
  const executable = realpathSync(options.executable ?? realClaudeBin());
  return waitFor(
    `the harness of iteration ${iteration} to run`,
    () => {
      const runs = existsSync(root)
        ? readdirSync(root).filter((r) => !options.runId || r === options.runId)
        : [];
      for (const run of runs) {
        const file = join(root, run, 'process.json');
        if (!existsSync(file)) continue;
        const group = (JSON.parse(readFileSync(file, 'utf8')) as { pgid: number }).pgid;
        const harness = liveGroup(group).find((pid) => executableOf(pid) === executable);
        if (harness !== undefined) return { group, harness };
      }
      return null;
    },
    options.timeoutMs ?? 60_000,
  );
}

function executableOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Live (non-zombie) processes of the group led by pid: PID 1 here does not reap, so kill(pid, 0) would lie. */
export function liveGroup(pgid: number): number[] {
  return liveProcessGroupMembers(pgid) ?? [];
}

export function sessionEvents(sessionDir: string): SessionEvent[] {
  return readJsonl(join(sessionDir, 'events.jsonl'), sessionEventSchema);
}

export function sessionState(sessionDir: string) {
  return readJsonIfExists(join(sessionDir, 'state.json'), sessionStateFileSchema);
}

/** Iteration numbers that events.jsonl reports as finished, recovered or abandoned, in order of first mention. */
export function endedIterations(events: SessionEvent[]): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const e of events) {
    if (!['iteration_finished', 'iteration_recovered', 'iteration_abandoned'].includes(e.type)) continue;
    if (e.iteration === undefined || seen.has(e.iteration)) continue;
    seen.add(e.iteration);
    order.push(e.iteration);
  }
  return order;
}
