import * as path from 'node:path';

export function sessionsRoot(cwd: string): string {
  return path.resolve(cwd, '.loopy_loop', 'sessions');
}

export interface SessionPaths {
  dir: string;
  goal: string;
  session: string;
  state: string;
  events: string;
  /** Every turn's history entry, one a line (historyEntrySchema), appended as state.json's projection records it. */
  history: string;
  control: string;
  updatesFromUser: string;
  children: string;
  childRequestsDir: string;
  childrenDir: string;
  projectStateDir: string;
  projectStateReadme: string;
  finished: string;
  evalChecksDir: string;
  evalResultsDir: string;
  harnessOutputsDir: string;
  iterationsDir: string;
}

export function sessionPaths(sessionDir: string): SessionPaths {
  const dir = path.resolve(sessionDir);
  // Concatenated, not path.join: `dir` is resolved and the parts are plain names, and a list of a thousand sessions
  // computes these twice for each.
  const at = (...parts: string[]): string => [dir, ...parts].join(path.sep);
  return {
    dir,
    goal: at('goal.md'),
    session: at('session.json'),
    state: at('state.json'),
    events: at('events.jsonl'),
    history: at('history.jsonl'),
    control: at('control.json'),
    updatesFromUser: at('updates_from_user.md'),
    children: at('children.json'),
    childRequestsDir: at('child_requests'),
    childrenDir: at('children'),
    projectStateDir: at('project_state'),
    projectStateReadme: at('project_state', 'README.md'),
    finished: at('project_state', 'finished.md'),
    evalChecksDir: at('eval_checks'),
    evalResultsDir: at('eval_results'),
    harnessOutputsDir: at('harness_outputs'),
    iterationsDir: at('iterations'),
  };
}

/** `0001_planner`; numbers past 9999 keep all their digits (and still sort after the 4-digit ones by length). */
export function iterationDirName(n: number, routineId: string): string {
  if (!Number.isInteger(n) || n < 1) throw new Error(`iteration number must be a positive integer, got ${n}`);
  return `${String(n).padStart(4, '0')}_${routineId}`;
}

export interface IterationPaths {
  dir: string;
  prompt: string;
  result: string;
  resultText: string;
  harnessRunId: string;
  pendingFinishedRequest: string;
  salvage: string;
  goalCheck: string;
  /** harness_outputs/<NNNN>_<routine>/: one subdirectory per harness run id. */
  harnessOutputRoot: string;
}

export function iterationPaths(sessionDir: string, n: number, routineId: string): IterationPaths {
  const name = iterationDirName(n, routineId);
  const dir = path.join(path.resolve(sessionDir), 'iterations', name);
  return {
    dir,
    prompt: path.join(dir, 'prompt.txt'),
    result: path.join(dir, 'result.json'),
    resultText: path.join(dir, 'result_text.txt'),
    harnessRunId: path.join(dir, 'harness_run_id.txt'),
    pendingFinishedRequest: path.join(dir, 'pending_finished_request.json'),
    salvage: path.join(dir, 'salvage.json'),
    goalCheck: path.join(dir, 'goal_check.json'),
    harnessOutputRoot: path.join(path.resolve(sessionDir), 'harness_outputs', name),
  };
}

export function harnessRunDir(sessionDir: string, n: number, routineId: string, runId: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(runId) || runId === '.' || runId === '..') {
    throw new Error(`harness run id '${runId}' is not a safe directory name`);
  }
  return path.join(iterationPaths(sessionDir, n, routineId).harnessOutputRoot, runId);
}
