import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { appendLine, writeFileAtomic } from '../session/atomic';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { iterationPaths, sessionPaths } from '../session/paths';
import { resultFileSchema, sessionEventSchema, type Usage } from '../session/schemas';
import { createSessionDirectory } from '../session/session-dir';
import { goalHash, newSessionId } from '../session/session-id';
import type { WorkItemHarness } from './schemas';
import type { HostedTurnUsage } from './turn-usage';

/** The routine id of an iteration that pasted an event or an instruction into a hosted session. */
export const DELIVERY_ROUTINE = 'event';

export interface SessionDirInput {
  sessionsDir: string;
  workItem: string;
  workflowId: string;
  taskQueue: string;
  hostQueue: string;
  harness: WorkItemHarness;
  cwd: string | null;
}

/** Creates the layout doc's session directory for a work item (goal.md names the work item). */
export function createWorkItemSessionDir(input: SessionDirInput): string {
  const goal = `Work item ${input.workItem}: act on the events the-loop delivers to this session.\n`;
  const id = newSessionId(goal);
  const dir = join(input.sessionsDir, id);
  createSessionDirectory({
    sessionDir: dir,
    goal,
    session: {
      session_id: id,
      goal_hash: goalHash(goal),
      created_at: new Date().toISOString(),
      cwd: input.cwd ?? dir,
      workflow_id: input.workflowId,
      task_queue: input.taskQueue,
      host_queue: input.hostQueue,
      harness: input.harness,
      parent_session_id: null,
      routines_file: null,
    },
    createdBy: 'host',
  });
  return dir;
}

export function sessionDirExists(dir: string): boolean {
  return existsSync(join(dir, 'session.json'));
}

/** One delivery is one iteration: prompt.txt holds exactly what was pasted. */
/** A turn's iteration directory with its prompt; its result.json comes when the turn ends. */
export function startDeliveryIteration(sessionDir: string, n: number, text: string): string {
  const paths = iterationPaths(sessionDir, n, DELIVERY_ROUTINE);
  writeFileAtomic(paths.prompt, text);
  writeFileAtomic(paths.harnessRunId, '');
  return paths.dir;
}

export function writeDeliveryIteration(
  sessionDir: string,
  n: number,
  text: string,
  outcome: { success: boolean; error: string | null },
): string {
  startDeliveryIteration(sessionDir, n, text);
  const paths = iterationPaths(sessionDir, n, DELIVERY_ROUTINE);
  writeJsonAtomic(paths.result, resultFileSchema, {
    success: outcome.success,
    text: '',
    error: outcome.error,
    harness_run_id: null,
    harness_output_dir: null,
  });
  writeFileAtomic(paths.resultText, '');
  return paths.dir;
}

/** A delivered turn ended: its reply (or why it failed) lands in result.json and the session's events. */
export function finishDeliveryIteration(
  sessionDir: string,
  n: number,
  outcome: {
    success: boolean;
    text: string;
    error: string | null;
    harnessSessionId: string | null;
    usage: HostedTurnUsage | null;
  },
): void {
  const paths = iterationPaths(sessionDir, n, DELIVERY_ROUTINE);
  writeJsonAtomic(paths.result, resultFileSchema, {
    success: outcome.success,
    text: outcome.text,
    error: outcome.error,
    harness_run_id: null,
    harness_output_dir: null,
    harness_session_id: outcome.harnessSessionId,
    ...(outcome.usage
      ? {
          usage: outcome.usage.usage,
          ...(outcome.usage.unpriced.length > 0 ? { unpriced_models: outcome.usage.unpriced } : {}),
        }
      : {}),
  });
  writeFileAtomic(paths.resultText, outcome.text);
  appendSessionEvent(sessionDir, basename(sessionDir), n * 2, 'iteration_finished', n, {
    success: outcome.success,
    ...(outcome.usage ? { cost_usd: outcome.usage.usage.cost_usd, usage: outcome.usage.usage } : {}),
  });
}

export function appendSessionEvent(
  sessionDir: string,
  sessionId: string,
  seq: number,
  type: 'iteration_started' | 'iteration_finished' | 'session_paused' | 'session_resumed' | 'session_stopped',
  iteration?: number,
  data?: Record<string, unknown>,
): void {
  const event = sessionEventSchema.parse({
    v: 1,
    seq,
    ts: new Date().toISOString(),
    session_id: sessionId,
    type,
    ...(iteration !== undefined ? { iteration, routine_id: DELIVERY_ROUTINE } : {}),
    ...(data ? { data } : {}),
  });
  appendLine(sessionPaths(sessionDir).events, JSON.stringify(event));
}

/** A hosted turn that ended with its usage in result.json. */
export interface FinishedTurnUsage {
  iteration: number;
  usage: Usage;
  unpricedModels: string[];
}

/**
 * The turns after `after` whose result.json holds their usage, in order: what a turn's end wrote before anything
 * counted it (a worker that died in between leaves it here, and only here).
 */
export function finishedTurnUsages(sessionDir: string, after: number): FinishedTurnUsage[] {
  let names: string[];
  try {
    names = readdirSync(join(sessionDir, 'iterations'));
  } catch {
    return [];
  }
  const suffix = `_${DELIVERY_ROUTINE}`;
  const iterations = names
    .filter((name) => name.endsWith(suffix))
    .map((name) => Number(name.slice(0, -suffix.length)))
    .filter((n) => Number.isInteger(n) && n > after)
    .sort((a, b) => a - b);
  return iterations.flatMap((iteration) => finishedTurnUsage(sessionDir, iteration) ?? []);
}

/** What one turn's result.json says it spent, or null (no result yet, none counted, or a torn file). */
export function finishedTurnUsage(sessionDir: string, iteration: number): FinishedTurnUsage | null {
  let result;
  try {
    result = readJsonIfExists(
      iterationPaths(sessionDir, iteration, DELIVERY_ROUTINE).result,
      resultFileSchema,
    );
  } catch {
    return null; // a torn result.json: its turn is written again whole, or never counted
  }
  return result?.usage
    ? { iteration, usage: result.usage, unpricedModels: result.unpriced_models ?? [] }
    : null;
}
