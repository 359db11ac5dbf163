import type { PriceTable } from '../pricing/prices';
import type { Usage } from '../session/schemas/usage';
import type { ProcessOutcome, SpawnInfo } from './process';

export type HarnessName = 'claude' | 'cursor' | 'codex' | 'command';

export interface HarnessRunOptions {
  /** Executable to run instead of the harness's default (claude/cursor/codex). */
  command?: string;
  permissionMode?: string;
  extraArgs?: string[];
  maxBudgetUsd?: number;
  /** The `command` harness's shell line; placeholders {prompt_file} {session_dir} {iteration_dir} {goal_file}. */
  commandLine?: string;
}

export interface HarnessRunRequest {
  prompt: string;
  /** prompt.txt, already written by the caller. */
  promptFile: string;
  cwd: string;
  sessionDir: string;
  iterationDir: string;
  goalFile: string;
  controlFile: string;
  /** harness_outputs/NNNN_x/<runId>/: created here; stdout.txt and stderr.txt are kept in it. */
  outputDir: string;
  runId: string;
  iteration: number;
  routineId: string;
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL when the process group must go; default 5000. */
  killGraceMs?: number;
  /**
   * Handed to the harness on top of the allow-listed part of the worker's environment (harnessEnv): the values of
   * what `harness.<name>.env` lists. `THE_LOOP_*_BIN` here picks the executable and is not handed over.
   */
  env?: Record<string, string>;
  /** Names kept out of the harness's environment (credentials), although its allow-list would let them in. */
  withheld?: readonly string[];
  /** Conversation continuity: `resume: false` starts conversation `id`, `resume: true` continues it. */
  conversation?: { id: string; resume: boolean };
  options: HarnessRunOptions;
  /** Prices of the models a harness that reports no cost of its own used (codex). */
  prices?: PriceTable;
  /** Aborting kills the whole process group (SIGTERM, then SIGKILL after killGraceMs). */
  signal?: AbortSignal;
  /** Called as soon as the start is requested, while the process starts: for work that need not precede it. */
  onLaunch?: () => void;
  onSpawn?: (info: SpawnInfo) => void;
}

/** Tool calls the harness refused for lack of permission; `all` when no tool call of the turn went through. */
export interface PermissionDenials {
  count: number;
  tools: string[];
  all: boolean;
}

export interface HarnessRunResult {
  success: boolean;
  text: string;
  error: string | null;
  exitCode: number | null;
  signal: string | null;
  /** The id to pass back as `conversation.id` with `resume: true` next time, when the harness reported one. */
  conversationId: string | null;
  usage: Usage | null;
  /** Models the turn used that `prices` has no price for: its cost_usd leaves them out. */
  unpricedModels?: string[];
  permissionDenials: PermissionDenials | null;
  /** The harness ended the turn because its per-turn budget (--max-budget-usd) was reached. */
  budgetExceeded: boolean;
  timedOut: boolean;
  aborted: boolean;
}

export interface HarnessAdapter {
  readonly name: HarnessName;
  run(req: HarnessRunRequest): Promise<HarnessRunResult>;
  /**
   * The turn's result from how its process ended and what it printed: what run() returns once the process is
   * gone, and what crash recovery reads from a run that finished while no worker watched it.
   */
  interpret(req: HarnessRunRequest, outcome: ProcessOutcome, wallClockMs: number): HarnessRunResult;
}
