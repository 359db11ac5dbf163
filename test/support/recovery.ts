// Shared by the crash-recovery integration tests and bench/crash-recovery.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configSchema, type TheLoopConfig } from '../../src/config/schema';
import { liveProcessGroupMembers } from '../../src/harness/process-group';
import { readJsonIfExists } from '../../src/session/json-file';
import { readJsonl } from '../../src/session/jsonl';
import { sessionEventSchema, sessionStateFileSchema, type SessionEvent } from '../../src/session/schemas';

// The fake claude is plain JS kept in test/support/bin (not copied to dist/): find it from either tree.
const ROOT = resolve(__dirname, '..', '..');
const REPO = existsSync(join(ROOT, 'package.json')) ? ROOT : resolve(ROOT, '..');
export const FAKE_CLAUDE_BIN = join(REPO, 'test', 'support', 'bin', 'claude');

export interface RecoveryConfigOptions {
  taskQueue: string;
  hostId: string;
  heartbeatTimeout: string;
  maxConsecutiveFailures?: number;
  address?: string;
}

/** A the-loop.yaml object for a worker process and the session input built against it. */
export function recoveryConfigObject(options: RecoveryConfigOptions): Record<string, unknown> {
  return {
    temporal: { taskQueue: options.taskQueue, ...(options.address ? { address: options.address } : {}) },
    worker: { hostId: options.hostId, heartbeatTimeout: options.heartbeatTimeout },
    harness: { claude: { command: FAKE_CLAUDE_BIN } },
    session: { maxConsecutiveFailures: options.maxConsecutiveFailures ?? 3 },
  };
}

export function recoveryConfig(options: RecoveryConfigOptions): TheLoopConfig {
  return configSchema.parse(recoveryConfigObject(options));
}

export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  what: string,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface FakeRun {
  n: number;
  pid: number;
  /** The run's process group, led by the harness's supervisor (not the fake itself). */
  pgid: number;
  iteration_dir: string | null;
  started_at: string;
}

/** The fake claude's own record of every start (runs.jsonl in its state directory). */
export function fakeRuns(stateDir: string): FakeRun[] {
  let text: string;
  try {
    text = readFileSync(join(stateDir, 'runs.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim())
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as FakeRun];
      } catch {
        return [];
      }
    });
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
