import { harnessRunDir, iterationPaths, sessionPaths } from './paths';
import type { PromptPlaceholder } from './prompt';

export interface PromptVarsInput {
  sessionDir: string;
  sessionId: string;
  goal: string;
  /** Current content of updates_from_user.md ('' when empty). */
  userUpdates: string;
  iteration: number;
  routineId: string;
  /** The harness run id, when known before rendering: {harness_output_dir} is then that run's directory. */
  runId?: string;
}

/** An empty inbox still renders as a sentence, so the agent is not left guessing what a blank section means. */
export const NO_USER_UPDATES = '(none: updates_from_user.md is empty)';

/** Every placeholder's value for one iteration, all paths absolute. */
export function buildPromptVars(input: PromptVarsInput): Record<PromptPlaceholder, string> {
  const s = sessionPaths(input.sessionDir);
  const it = iterationPaths(input.sessionDir, input.iteration, input.routineId);
  const updates = input.userUpdates.trim();
  return {
    goal: input.goal.trim(),
    goal_file: s.goal,
    session_dir: s.dir,
    session_id: input.sessionId,
    control_file: s.control,
    updates_file: s.updatesFromUser,
    user_updates: updates === '' ? NO_USER_UPDATES : updates,
    project_state_dir: s.projectStateDir,
    finished_file: s.finished,
    iteration: String(input.iteration),
    iteration_dir: it.dir,
    routine_id: input.routineId,
    harness_output_dir:
      input.runId === undefined
        ? it.harnessOutputRoot
        : harnessRunDir(input.sessionDir, input.iteration, input.routineId, input.runId),
    goal_check_file: it.goalCheck,
    eval_checks_dir: s.evalChecksDir,
    eval_results_dir: s.evalResultsDir,
    child_requests_dir: s.childRequestsDir,
    children_dir: s.childrenDir,
  };
}
