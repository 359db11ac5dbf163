import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { allowedEnvironment } from './allowed-env';
import type { HarnessName, HarnessRunRequest } from './types';

/** bin/ of this installation (from src/ or from dist/src/): puts `loopy` (`loopy eval run`) on the harness's PATH. */
export const LOOPY_BIN_DIR = [
  resolve(__dirname, '..', '..', 'bin'),
  resolve(__dirname, '..', '..', '..', 'bin'),
].find((dir) => existsSync(join(dir, 'the-loop.js')));

/**
 * The environment every goal harness is started with: the allow-list of allowedEnvironment over the worker's own
 * environment, and the LOOPY_* variables, which let agents' own scripts find the session without parsing the prompt.
 */
export function harnessEnv(harness: HarnessName, req: HarnessRunRequest): Record<string, string> {
  const env = allowedEnvironment(harness, process.env, { listed: req.env, withheld: req.withheld });
  return {
    ...env,
    LOOPY_SESSION_DIR: req.sessionDir,
    LOOPY_ITERATION_DIR: req.iterationDir,
    LOOPY_ITERATION: String(req.iteration),
    LOOPY_ROUTINE_ID: req.routineId,
    LOOPY_CONTROL_FILE: req.controlFile,
    LOOPY_GOAL_FILE: req.goalFile,
    LOOPY_PROMPT_FILE: req.promptFile,
    LOOPY_HARNESS_OUTPUT_DIR: req.outputDir,
    PATH: [LOOPY_BIN_DIR ?? '', env.PATH ?? ''].filter(Boolean).join(delimiter),
  };
}

/** options.command, else the harness's THE_LOOP_*_BIN variable (request env first), else the default name. */
export function resolveExecutable(req: HarnessRunRequest, envVar: string, fallback: string): string {
  return req.options.command ?? req.env?.[envVar] ?? process.env[envVar] ?? fallback;
}
