import { resolve } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { requireDuration } from '../config/duration';
import { DEFAULT_ROUTINES } from '../session/default-routines';
import type { Routine } from '../session/routine-schedule';
import { sessionsRoot } from '../session/paths';
import { goalHash, newSessionId } from '../session/session-id';
import { defaultHostId } from '../temporal/queues';
import { hostQueueName } from '../workflows/goal-session/host-queue';
import type { GoalSessionInput, HarnessKind } from '../workflows/goal-session/types';

export interface SessionOptions {
  goal: string;
  cwd: string;
  harness: HarnessKind;
  harnessCommand?: string | null;
  routines?: Routine[];
  routinesFile?: string | null;
  maxIterations?: number | null;
  maxCostUsd?: number | null;
  maxDurationMs?: number | null;
  parentSessionId?: string | null;
  /** Defaults to a fresh id; child sessions and tests may pass their own. */
  sessionId?: string;
  /** Defaults to <cwd>/.loopy_loop/sessions/<session_id>. */
  sessionDir?: string;
  now?: Date;
}

/** The workflow input of a goal session, resolved against the configuration. */
export function buildSessionInput(config: TheLoopConfig, options: SessionOptions): GoalSessionInput {
  const now = options.now ?? new Date();
  const cwd = resolve(options.cwd);
  const sessionId = options.sessionId ?? newSessionId(options.goal, now);
  const taskQueue = config.temporal.taskQueue;
  return {
    sessionId,
    sessionDir: options.sessionDir ?? resolve(sessionsRoot(cwd), sessionId),
    cwd,
    goal: options.goal,
    goalHash: goalHash(options.goal),
    createdAt: now.toISOString(),
    harness: options.harness,
    harnessCommand: options.harnessCommand ?? null,
    routines: options.routines ?? [...DEFAULT_ROUTINES],
    routinesFile: options.routinesFile ?? null,
    limits: {
      maxIterations: options.maxIterations ?? null,
      maxCostUsd: options.maxCostUsd ?? null,
      maxDurationMs: options.maxDurationMs ?? null,
      maxConsecutiveFailures: config.session.maxConsecutiveFailures,
    },
    iterationTimeoutMs: requireDuration(config.harness.iterationTimeout, 'harness.iterationTimeout'),
    heartbeatTimeoutMs: requireDuration(config.worker.heartbeatTimeout, 'worker.heartbeatTimeout'),
    taskQueue,
    hostQueue: hostQueueName(taskQueue, defaultHostId(config)),
    parentSessionId: options.parentSessionId ?? null,
    waitOnQuestion: config.session.waitOnQuestion,
    waitOnPermission: config.session.waitOnPermission,
    fleetBudget: config.budget.daily !== undefined || config.budget.monthly !== undefined,
  };
}
