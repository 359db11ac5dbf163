import type { HarnessRunRequest } from '../harness';
import { priceTable } from '../pricing/prices';
import { sessionPaths, type IterationPaths } from '../session/paths';
import type { IterationRequest } from '../workflows/goal-session/types';
import type { ActivityDeps } from './deps';

/**
 * The harness request of one iteration's run: the same for the attempt that starts it and for a later attempt
 * that reads what it left (the adapters interpret a run's files from it).
 */
export function harnessRequest(
  deps: ActivityDeps,
  req: IterationRequest,
  paths: IterationPaths,
  run: { runId: string; outputDir: string; prompt: string },
): { request: HarnessRunRequest } {
  const { sessionDir, cwd } = req.input;
  const harnessName = req.routine.harness ?? req.input.harness;
  const options = req.routine.harness_options;
  const launch = deps.config.harness[harnessName === 'command' ? 'claude' : harnessName];
  const budgetCaps = [
    options.max_budget_usd,
    launch.maxBudgetUsdPerTurn,
    req.remainingBudgetUsd ?? undefined,
  ].filter((v): v is number => typeof v === 'number' && v > 0);
  return {
    request: {
      prompt: run.prompt,
      promptFile: paths.prompt,
      cwd,
      sessionDir,
      iterationDir: paths.dir,
      goalFile: sessionPaths(sessionDir).goal,
      controlFile: sessionPaths(sessionDir).control,
      outputDir: run.outputDir,
      runId: run.runId,
      iteration: req.iteration,
      routineId: req.routine.id,
      timeoutMs: req.input.iterationTimeoutMs,
      conversation: req.conversation ?? undefined,
      prices: priceTable(deps.config.pricing),
      options: {
        command: options.command ?? (harnessName === 'command' ? undefined : launch.command),
        commandLine: options.command_line ?? req.input.harnessCommand ?? undefined,
        permissionMode: options.permission_mode ?? launch.permissionMode,
        extraArgs: [...(harnessName === 'command' ? [] : launch.extraArgs), ...(options.extra_args ?? [])],
        maxBudgetUsd: budgetCaps.length > 0 ? Math.min(...budgetCaps) : undefined,
      },
    },
  };
}
