import type { HarnessRunRequest } from './types';

/** The LOOPY_* variables let agents' own scripts (and the fake claude) find the session without parsing the prompt. */
export function harnessEnv(req: HarnessRunRequest): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...req.env,
    LOOPY_SESSION_DIR: req.sessionDir,
    LOOPY_ITERATION_DIR: req.iterationDir,
    LOOPY_ITERATION: String(req.iteration),
    LOOPY_ROUTINE_ID: req.routineId,
    LOOPY_CONTROL_FILE: req.controlFile,
    LOOPY_GOAL_FILE: req.goalFile,
    LOOPY_PROMPT_FILE: req.promptFile,
    LOOPY_HARNESS_OUTPUT_DIR: req.outputDir,
  };
}

/** options.command, else the harness's THE_LOOP_*_BIN variable (request env first), else the default name. */
export function resolveExecutable(req: HarnessRunRequest, envVar: string, fallback: string): string {
  return req.options.command ?? req.env?.[envVar] ?? process.env[envVar] ?? fallback;
}
