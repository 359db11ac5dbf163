import { iterationPaths, sessionPaths } from './paths';
import type { PromptPlaceholder } from './prompt';

export interface PromptVarsInput {
  sessionDir: string;
  sessionId: string;
  /** The goal as the session was started with it: substituted verbatim. */
  goal: string;
  /** Current content of updates_from_user.md ('' when empty). */
  userUpdates: string;
  iteration: number;
  routineId: string;
}

/** What {user_updates} renders as when the inbox is empty or only whitespace. */
export const NO_USER_UPDATES = '(none)';

/**
 * Every placeholder's value for one iteration, all paths absolute. {harness_output_dir} is the iteration's root
 * of harness runs: the prompt is written before the run (and its directory) exists.
 */
export function buildPromptVars(input: PromptVarsInput): Record<PromptPlaceholder, string> {
  const session = sessionPaths(input.sessionDir);
  const iteration = iterationPaths(input.sessionDir, input.iteration, input.routineId);
  const updates = input.userUpdates.trim();
  return {
    goal: input.goal,
    goal_file: session.goal,
    session_dir: session.dir,
    session_id: input.sessionId,
    control_file: session.control,
    updates_file: session.updatesFromUser,
    user_updates: updates === '' ? NO_USER_UPDATES : updates,
    project_state_dir: session.projectStateDir,
    finished_file: session.finished,
    iteration: String(input.iteration),
    iteration_dir: iteration.dir,
    routine_id: input.routineId,
    harness_output_dir: iteration.harnessOutputRoot,
    goal_check_file: iteration.goalCheck,
    eval_checks_dir: session.evalChecksDir,
    eval_results_dir: session.evalResultsDir,
    child_requests_dir: session.childRequestsDir,
    children_dir: session.childrenDir,
  };
}
