// Writes the scene's `loopy run` goal session under the directory the board runs in
// (<cwd>/.loopy_loop/sessions/<id>): its directory, the ended turns' results and state.json, each through its
// schema, as the goal session's workflow would have projected them.
import { join } from 'node:path';
import { writeJsonAtomic } from '../../src/session/json-file';
import { iterationPaths, sessionPaths, sessionsRoot } from '../../src/session/paths';
import { resultFileSchema, sessionStateFileSchema, type HistoryEntry } from '../../src/session/schemas';
import { createSessionDirectory } from '../../src/session/session-dir';
import { goalHash, newSessionId } from '../../src/session/session-id';
import { ago, GOAL, HOST_QUEUE, TASK_QUEUE, usageFor } from './scene';

/** The routine of turn n: the default routines plan first, then work. */
const routine = (n: number) => (n === 1 ? 'planner' : 'worker');

export function seedGoalSession(cwd: string): void {
  const goal = `${GOAL.goal}\n`;
  const id = newSessionId(goal, new Date(ago(GOAL.startedAgo)), '5eed0a11');
  const dir = join(sessionsRoot(cwd), id);
  createSessionDirectory({
    sessionDir: dir,
    goal,
    session: {
      session_id: id,
      goal_hash: goalHash(goal),
      created_at: ago(GOAL.startedAgo),
      cwd,
      workflow_id: id,
      task_queue: TASK_QUEUE,
      host_queue: HOST_QUEUE,
      harness: 'claude',
      parent_session_id: null,
      routines_file: null,
    },
    createdBy: 'loopy',
  });
  const perTurn = GOAL.costUsd / GOAL.ended;
  // the ended turns spread evenly from the start to the running one
  const step = (GOAL.startedAgo - GOAL.updatedAgo) / GOAL.ended;
  const history: HistoryEntry[] = GOAL.replies.map((reply, index) => {
    const n = index + 1;
    writeJsonAtomic(iterationPaths(dir, n, routine(n)).result, resultFileSchema, {
      success: true,
      text: reply,
      error: null,
      harness_run_id: null,
      harness_output_dir: null,
    });
    return {
      iteration: n,
      routine_id: routine(n),
      started_at: ago(GOAL.startedAgo - index * step),
      finished_at: ago(GOAL.startedAgo - n * step),
      success: true,
      error: null,
      harness_run_id: null,
      usage: usageFor(perTurn, 1),
      recovered: false,
    };
  });
  const total = usageFor(GOAL.costUsd, GOAL.ended);
  const none = usageFor(0, 0);
  writeJsonAtomic(sessionPaths(dir).state, sessionStateFileSchema, {
    schema_version: 1,
    session_id: id,
    status: 'running',
    iteration: GOAL.ended + 1,
    dispatch: {
      active_iteration: { number: GOAL.ended + 1, routine_id: 'worker', started_at: ago(GOAL.updatedAgo) },
      paused: false,
      next_routine_id: null,
    },
    history,
    stop: { kind: null, reason: null, requested_by: null, at: null },
    active_child_session_id: null,
    usage: { own: total, children: none, total },
    consecutive_failures: 0,
    started_at: ago(GOAL.startedAgo),
    updated_at: ago(GOAL.updatedAgo),
  });
}
