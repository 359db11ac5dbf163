import { randomUUID } from 'node:crypto';

import {
  authFailureOf,
  claudeAuthFailure,
  claudeCredentialName,
  CLAUDE_BUDGET_SUBTYPE,
  claudeErrorMessage,
  claudePermissionDenials,
  claudeUsage,
  parseClaudeStdout,
} from './claude-output';
import { claudeConversationResumable } from './claude-transcript';
import { harnessEnv, resolveExecutable } from './env';
import { launchHarness } from './launch';
import { authFailureMessage, stopOnRefusedCredential } from './refused-credential';
import { baseResult, exitFailure, lastLines, processFailure } from './outcome';
import type { ProcessOutcome } from './process';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from './types';
import { budgetArgument } from '../pricing/money';

export const CLAUDE_BIN_ENV = 'THE_LOOP_CLAUDE_BIN';

export function claudeArgs(req: HarnessRunRequest): string[] {
  // stream-json: a model call claude retries is a line as it happens (a refused credential fails the turn at once);
  // the result is its last line, the one object `--output-format json` prints
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  if (req.conversation) {
    // --session-id names a new conversation; a later turn must --resume it (reusing --session-id fails).
    // `--flag=<id>`: the id can never be taken for a flag of its own.
    args.push(`${req.conversation.resume ? '--resume' : '--session-id'}=${req.conversation.id}`);
  }
  if (req.options.permissionMode) args.push('--permission-mode', req.options.permissionMode);
  if (req.options.maxBudgetUsd !== undefined)
    args.push('--max-budget-usd', budgetArgument(req.options.maxBudgetUsd));
  args.push(...(req.options.extraArgs ?? []));
  return args;
}

export const claudeHarness: HarnessAdapter = {
  name: 'claude',
  async run(req: HarnessRunRequest): Promise<HarnessRunResult> {
    const executable = resolveExecutable(req, CLAUDE_BIN_ENV, 'claude');
    const started = Date.now();
    const turn = await withResumableConversation(req);
    const refused = stopOnRefusedCredential(turn, authFailureOf);
    try {
      const outcome = await launchHarness('claude', refused.request, executable, claudeArgs(turn));
      return interpretClaude(turn, outcome, executable, Date.now() - started);
    } finally {
      refused.stop();
    }
  },
  interpret(req, outcome, wallClockMs) {
    const executable = resolveExecutable(req, CLAUDE_BIN_ENV, 'claude');
    return interpretClaude(req, outcome, executable, wallClockMs);
  },
};

/** A run whose model calls were refused for the credential failed for that, whatever else it printed. */
function interpretClaude(
  req: HarnessRunRequest,
  outcome: ProcessOutcome,
  executable: string,
  wallClockMs: number,
): HarnessRunResult {
  const result = interpretJsonResult('claude', outcome, executable, CLAUDE_BIN_ENV, req, wallClockMs);
  const refused = result.success ? null : claudeAuthFailure(outcome.stdout);
  if (!refused || req.signal?.aborted) return result;
  // stopped by its watcher, not by the session: a failed turn, not a stop
  const error = authFailureMessage('claude', refused, claudeCredentialName(harnessEnv('claude', req)));
  return { ...result, aborted: false, error };
}

/**
 * A conversation to resume that claude cannot find (no message yet, or made in another cwd) is replaced by a new one:
 * otherwise the turn fails with "No conversation found". The new id comes back as the turn's conversationId.
 */
async function withResumableConversation(req: HarnessRunRequest): Promise<HarnessRunRequest> {
  const conversation = req.conversation;
  if (!conversation?.resume) return req;
  if (await claudeConversationResumable(req.cwd, conversation.id, harnessEnv('claude', req))) return req;
  return { ...req, conversation: { id: randomUUID(), resume: false } };
}

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
  const permissionDenials = parsed ? claudePermissionDenials(parsed) : null;
  const text = parsed?.result ?? '';
  const reported = { conversationId, usage, permissionDenials };
  if (failure) return { ...base, ...reported, success: false, text, error: failure };
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
    return {
      ...base,
      ...reported,
      success: false,
      text,
      error: claudeErrorMessage(name, parsed),
      budgetExceeded: parsed.subtype === CLAUDE_BUDGET_SUBTYPE,
    };
  }
  if (outcome.exitCode !== 0) {
    return { ...base, ...reported, success: false, text, error: exitFailure(name, outcome) };
  }
  // The CLI says `success` when it refused every tool call; a turn that could do nothing did not succeed.
  if (permissionDenials?.all) {
    const error = `${name} was refused every tool call it made (${permissionDenials.count}: ${permissionDenials.tools.join(', ')}); allow them with harness.${name}.permissionMode or the routine's permission_mode`;
    return { ...base, ...reported, success: false, text, error };
  }
  return { ...base, ...reported, success: true, text, error: null };
}
