import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { getHarness, type HarnessRunResult } from '../harness';
import { finishedRunOutcome } from '../harness/output-file';
import { EXIT_FILE } from '../harness/supervisor';
import { readJsonIfExists } from '../session/json-file';
import { harnessRunDir, type IterationPaths } from '../session/paths';
import { harnessExitFileSchema, type HarnessExitFile } from '../session/schemas';
import type { IterationRequest } from '../workflows/goal-session/types';
import type { ActivityDeps } from './deps';
import { harnessRequest } from './harness-request';
import { readText } from './session-files';

export interface RunLeft {
  /** The harness ended by itself (its supervisor wrote exit.json with an exit code): its turn is recovered. */
  finished: boolean;
  exit: HarnessExitFile | null;
  /** What the adapter reads from the run's files: the same code as for a run the worker watched end. */
  run: HarnessRunResult;
}

export function readExit(outputDir: string): HarnessExitFile | null {
  try {
    return readJsonIfExists(join(outputDir, EXIT_FILE), harnessExitFileSchema);
  } catch {
    return null; // blanks (the harness has not ended), part of a record, or foreign: no verdict
  }
}

/** The run's directory, when its id is a safe name. */
export function runOutputDir(req: IterationRequest, runId: string): string | null {
  try {
    return harnessRunDir(req.input.sessionDir, req.iteration, req.routine.id, runId);
  } catch {
    return null;
  }
}

/**
 * What an earlier attempt's harness run left in its directory. It finished when its exit.json holds an exit code and
 * that exit was not recovery's doing: read before the reaper ran (`endedBeforeReap`), or the reaper signalled nothing
 * of this run (it found the group gone: the harness ended by itself while exit.json was being written). A run killed
 * by a signal, or whose supervisor died with it (no exit.json), did not finish either; any usage it printed is still
 * read.
 */
export async function readRunLeft(
  deps: ActivityDeps,
  req: IterationRequest,
  paths: IterationPaths,
  runId: string,
  reap: { endedBeforeReap: HarnessExitFile | null; signalled: boolean },
): Promise<RunLeft | null> {
  let outputDir: string;
  let harness;
  try {
    outputDir = harnessRunDir(req.input.sessionDir, req.iteration, req.routine.id, runId);
    harness = getHarness(req.routine.harness ?? req.input.harness);
  } catch {
    return null;
  }
  if (!existsSync(outputDir)) return null;
  const exit = readExit(outputDir);
  const { request } = harnessRequest(deps, req, paths, { runId, outputDir, prompt: readText(paths.prompt) });
  const outcome = await finishedRunOutcome(outputDir, {
    pid: null,
    code: exit?.code ?? null,
    signal: exit?.signal ?? (exit ? null : 'SIGKILL'),
  });
  const run = harness.interpret(request, outcome, 0);
  const ended = reap.endedBeforeReap ?? (reap.signalled ? null : exit);
  return { finished: ended !== null && ended.signal === null && ended.code !== null, exit, run };
}
