// A goal session set up for the crash tests: its turns scripted on the mock Anthropic API, its worker processes
// spawned on a queue of its own and kept in the test's list (its afterEach kills them).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSessionInput } from '../../src/cli/session-input';
import type { MockAnthropic } from './mock-anthropic';
import { recoveryConfig, recoveryConfigObject } from './recovery';
import { scriptGoalLoops, type AgentPlay } from './scripted-agent';
import { testServer, uniqueQueue } from './temporal';
import { spawnWorkerProcess, type WorkerProcess, type WorkerProcessOptions } from './worker-processes';

export interface CrashSessionOptions {
  /** Names the queue and the scratch directory. */
  name: string;
  hostId: string;
  heartbeatTimeoutMs: number;
  goal: string;
  /** By iteration (1-based); the others cost $0.01. */
  turns: AgentPlay[];
  maxIterations: number;
  /** In place of the real claude, where no real CLI can do the job (e.g. one that ignores SIGTERM). */
  claudeCommand?: string;
  /** The session's working directory (default: a new scratch one). */
  cwd?: string;
}

export function crashSession(mock: MockAnthropic, workers: WorkerProcess[], options: CrashSessionOptions) {
  const played = scriptGoalLoops(mock, (turn) => options.turns[turn.iteration - 1] ?? { costUsd: 0.01 });
  const taskQueue = uniqueQueue(options.name);
  const config = {
    taskQueue,
    hostId: options.hostId,
    heartbeatTimeout: `${options.heartbeatTimeoutMs}ms`,
    ...(options.claudeCommand ? { claudeCommand: options.claudeCommand } : {}),
  };
  const worker = (extra: Partial<WorkerProcessOptions> = {}) => {
    const w = spawnWorkerProcess({
      address: testServer().address,
      taskQueue,
      hostId: options.hostId,
      bundlePath: testServer().bundlePath,
      config: recoveryConfigObject(config),
      ...extra,
    });
    workers.push(w);
    return w;
  };
  const input = buildSessionInput(recoveryConfig(config), {
    goal: options.goal,
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), `loopy-${options.name}-`)),
    harness: 'claude',
    maxIterations: options.maxIterations,
  });
  return { played, worker, input };
}
