import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { durationProblem, parseDuration } from '../config/duration';
import { parseWholeNumber } from '../config/numbers';
import { emptyBudgetFile, type BudgetFile } from '../budget/limits-file';
import { budgetApplies, unpriceable } from '../budget/priceable';
import { limitsInForce } from '../budget/wait';
import { usdArgument } from './usd-argument';
import { INPUT_FILE_LIMITS, readInputFile } from '../config/read-input-file';
import { SIZE_LIMITS } from '../session/limits';
import { parseRoutinesYaml } from '../config/routines';
import type { TheLoopConfig } from '../config/schema';
import { FileFormatError } from '../config/yaml-errors';
import type { Routine } from '../session/routine-schedule';
import type { HarnessKind } from '../workflows/goal-session/types';
import { errorLine, usageError } from '../errors';

export interface RawRunOptions {
  goal?: string;
  goalFile?: string;
  harness?: string;
  harnessCommand?: string;
  workflows?: string;
  maxIterations?: string;
  maxCostUsd?: string;
  maxDuration?: string;
  cwd?: string;
  detach?: boolean;
  allowUnpriced?: boolean;
  format: string;
}

export interface RunOptions {
  goal: string;
  cwd: string;
  harness: HarnessKind;
  harnessCommand: string | null;
  routines: Routine[] | undefined;
  routinesFile: string | null;
  maxIterations: number;
  maxCostUsd: number | null;
  maxDurationMs: number | null;
  detach: boolean;
  format: 'text' | 'jsonl';
}

const HARNESSES: readonly HarnessKind[] = ['claude', 'cursor', 'codex', 'command'];

/** Every check happens before anything is created: bad input leaves no session directory and no workflow. */
export function validateRunOptions(
  raw: RawRunOptions,
  config: TheLoopConfig,
  invokedFrom: string,
  /** budget.json of the state directory: the fleet's budgets set from the command line. */
  budgets: BudgetFile = emptyBudgetFile(),
): RunOptions {
  if (raw.goal !== undefined && raw.goalFile !== undefined)
    throw usageError('give --goal or --goal-file, not both');
  let goal: string;
  if (raw.goalFile !== undefined) {
    goal = readInputFile({
      flag: '--goal-file',
      path: raw.goalFile,
      resolved: resolve(invokedFrom, raw.goalFile),
      maxBytes: INPUT_FILE_LIMITS.goal,
    });
    if (!goal.trim())
      throw usageError(`--goal-file ${raw.goalFile}: the file is empty; write the goal into it`);
  } else if (raw.goal !== undefined) {
    goal = raw.goal;
    if (!goal.trim()) throw usageError('--goal is empty: say what the session should achieve');
  } else {
    throw usageError('a goal is required: --goal TEXT or --goal-file FILE');
  }
  const goalBytes = Buffer.byteLength(goal, 'utf8');
  if (goalBytes > SIZE_LIMITS.goalBytes)
    throw usageError(
      `the goal is ${goalBytes} bytes; the limit is ${SIZE_LIMITS.goalBytes}: put the details in a file the goal names`,
    );

  const harness = (raw.harness ?? (raw.harnessCommand ? 'command' : config.harness.default)) as HarnessKind;
  if (!HARNESSES.includes(harness)) {
    throw usageError(`unknown harness '${raw.harness}' — use one of ${HARNESSES.join(', ')}`);
  }
  if (raw.harnessCommand !== undefined && harness !== 'command') {
    throw usageError(`--harness-command goes with --harness command, not --harness ${harness}`);
  }

  const cwd = resolve(invokedFrom, raw.cwd ?? '.');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw usageError(`--cwd ${raw.cwd}: no such directory`);

  let routines: Routine[] | undefined;
  let routinesFile: string | null = null;
  if (raw.workflows !== undefined) {
    routinesFile = resolve(invokedFrom, raw.workflows);
    const text = readInputFile({
      flag: '--workflows',
      path: raw.workflows,
      resolved: routinesFile,
      maxBytes: INPUT_FILE_LIMITS.config,
    });
    try {
      routines = parseRoutinesYaml(text, routinesFile);
    } catch (error) {
      if (error instanceof FileFormatError) throw usageError(error.message);
      throw usageError(errorLine(error));
    }
  }
  if (harness === 'command' && !raw.harnessCommand) {
    const everyRoutineHasALine =
      routines !== undefined &&
      routines.every((r) => (r.harness ?? harness) !== 'command' || r.harness_options.command_line);
    if (!everyRoutineHasALine) throw usageError("--harness command needs --harness-command 'CMD …'");
  }

  let maxIterations = config.session.maxIterations;
  if (raw.maxIterations !== undefined) {
    const parsed = parseWholeNumber(raw.maxIterations, { min: 1, max: 1_000_000 });
    if (parsed === null)
      throw usageError(`--max-iterations ${raw.maxIterations}: expected a whole number from 1 to 1000000`);
    maxIterations = parsed;
  }
  const maxCostUsd =
    raw.maxCostUsd !== undefined
      ? usdArgument('--max-cost-usd', raw.maxCostUsd)
      : (config.session.maxCostUsd ?? null);
  let maxDurationMs: number | null = null;
  if (raw.maxDuration !== undefined) {
    maxDurationMs = parseDuration(raw.maxDuration);
    if (maxDurationMs === null) throw usageError(`--max-duration ${durationProblem(raw.maxDuration)}`);
  }
  const harnesses = [harness, ...(routines ?? []).map((routine) => routine.harness ?? harness)];
  const limits = { ...limitsInForce(config, budgets, null, new Date()), workItem: maxCostUsd };
  const cannotCount = budgetApplies(limits) ? unpriceable(harnesses) : null;
  if (cannotCount !== null && raw.allowUnpriced !== true) {
    throw usageError(
      `${cannotCount}: drop the budget (--max-cost-usd, session.maxCostUsd, budget.daily/monthly) or pass --allow-unpriced`,
    );
  }
  if (raw.format !== 'text' && raw.format !== 'jsonl')
    throw usageError(`--format ${raw.format}: use text or jsonl`);
  return {
    goal,
    cwd,
    harness,
    harnessCommand: raw.harnessCommand ?? null,
    routines,
    routinesFile,
    maxIterations,
    maxCostUsd,
    maxDurationMs,
    detach: raw.detach ?? false,
    format: raw.format,
  };
}
