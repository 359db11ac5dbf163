import { claudeUsage, parseClaudeStdout } from './claude-output';
import { resolveExecutable } from './env';
import { launchHarness } from './launch';
import { baseResult, exitFailure, lastLines, processFailure } from './outcome';
import type { ProcessOutcome } from './process';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from './types';

export const CLAUDE_BIN_ENV = 'THE_LOOP_CLAUDE_BIN';

export function claudeArgs(req: HarnessRunRequest): string[] {
  const args = ['-p', '--output-format', 'json'];
  if (req.conversation) {
    // --session-id names a new conversation; a later turn must --resume it (reusing --session-id fails).
    args.push(req.conversation.resume ? '--resume' : '--session-id', req.conversation.id);
  }
  if (req.options.permissionMode) args.push('--permission-mode', req.options.permissionMode);
  if (req.options.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(req.options.maxBudgetUsd));
  args.push(...(req.options.extraArgs ?? []));
  return args;
}

export const claudeHarness: HarnessAdapter = {
  name: 'claude',
  async run(req: HarnessRunRequest): Promise<HarnessRunResult> {
    const executable = resolveExecutable(req, CLAUDE_BIN_ENV, 'claude');
    const started = Date.now();
    const outcome = await launchHarness(req, executable, claudeArgs(req));
    return interpretJsonResult('claude', outcome, executable, CLAUDE_BIN_ENV, req, Date.now() - started);
  },
};

/** Shared by claude and cursor-agent, whose `--output-format json` results have the same shape. */
export function interpretJsonResult(
  name: string,
  outcome: ProcessOutcome,
  executable: string,
  envVar: string,
  req: HarnessRunRequest,
  wallClockMs: number,
): HarnessRunResult {
  const base = baseResult(outcome);
  const failure = processFailure(outcome, executable, envVar, req.timeoutMs);
  const parsed = outcome.spawnError ? null : parseClaudeStdout(outcome.stdout);
  const conversationId = parsed?.session_id ?? req.conversation?.id ?? null;
  const usage = parsed ? claudeUsage(parsed, wallClockMs) : null;
  const text = parsed?.result ?? '';
  if (failure) return { ...base, success: false, text, error: failure, conversationId, usage };
  if (!parsed) {
    const shown = lastLines(outcome.stdout, 2) || '(empty)';
    const exit = outcome.exitCode === 0 ? '' : `; ${exitFailure(name, outcome)}`;
    return {
      ...base,
      success: false,
      text: '',
      error: `${name} printed no JSON result on stdout (got: ${shown})${exit}`,
      conversationId,
    };
  }
  if (parsed.is_error) {
    const detail = parsed.result ? `: ${parsed.result.slice(0, 500)}` : '';
    return {
      ...base,
      success: false,
      text,
      error: `${name} reported ${parsed.subtype}${detail}`,
      conversationId,
      usage,
    };
  }
  if (outcome.exitCode !== 0) {
    return { ...base, success: false, text, error: exitFailure(name, outcome), conversationId, usage };
  }
  return { ...base, success: true, text, error: null, conversationId, usage };
}
