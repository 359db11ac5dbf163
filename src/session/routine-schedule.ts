// Runs inside Temporal workflow code: keep this module free of imports other than `import type`.

export type RoutineHarnessName = 'claude' | 'cursor' | 'codex' | 'command';

/**
 * When a routine runs. Exactly one routine of a set has `default`. At iteration n with the previous
 * iteration's routine p, the first rule that matches wins:
 *   1. n === 1 and a routine has `first: true`           -> that routine;
 *   2. a routine with `every: k` where n % k === 0        -> the first such routine in file order;
 *   3. a routine with `after: p`                          -> the first such routine in file order;
 *   4. otherwise                                          -> the `default: true` routine.
 * A `first` routine runs only at iteration 1 (unless it is also the default, which it cannot be:
 * each routine has exactly one `when`).
 */
export type RoutineWhen = { first: true } | { every: number } | { after: string } | { default: true };

export interface RoutineHarnessOptions {
  /** Executable for claude/cursor/codex instead of the name on PATH. */
  command?: string;
  /** Shell command line for the `command` harness (placeholders: prompt_file, session_dir, iteration_dir, goal_file). */
  command_line?: string;
  permission_mode?: string;
  extra_args?: string[];
  max_budget_usd?: number;
  /** `continue` resumes the routine's previous conversation; `fresh` starts a new one every iteration. */
  conversation?: 'fresh' | 'continue';
}

export interface Routine {
  id: string;
  prompt: string;
  harness?: RoutineHarnessName;
  harness_options: RoutineHarnessOptions;
  emits_goal_check: boolean;
  when: RoutineWhen;
}

/** The reserved id: a routine named goal_check always produces goal_check.json. */
export const GOAL_CHECK_ROUTINE_ID = 'goal_check';

export function routineEmitsGoalCheck(routine: Pick<Routine, 'id' | 'emits_goal_check'>): boolean {
  return routine.emits_goal_check || routine.id === GOAL_CHECK_ROUTINE_ID;
}

export function pickRoutine<R extends Routine>(
  routines: readonly R[],
  iterationNumber: number,
  previousRoutineId: string | null,
): R {
  if (iterationNumber === 1) {
    const first = routines.find((r) => 'first' in r.when);
    if (first) return first;
  }
  const periodic = routines.find((r) => 'every' in r.when && iterationNumber % r.when.every === 0);
  if (periodic) return periodic;
  if (previousRoutineId !== null) {
    const follower = routines.find((r) => 'after' in r.when && r.when.after === previousRoutineId);
    if (follower) return follower;
  }
  const fallback = routines.find((r) => 'default' in r.when);
  if (fallback) return fallback;
  throw new Error('routine set has no routine with when.default: true');
}
