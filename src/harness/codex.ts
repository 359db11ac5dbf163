import * as fs from 'node:fs';
import * as path from 'node:path';

import { DEFAULT_PRICES, costOf, priceOf } from '../pricing/prices';
import type { Usage } from '../session/schemas/usage';
import { emptyUsage } from '../session/usage-math';
import { codexHome, codexRollout, type CodexRollout } from './codex-model';
import {
  CODEX_REFUSAL_MENTION,
  codexAuthFailureOf,
  codexCredentialName,
  parseCodexEvents,
} from './codex-output';
import { codexTurnUsage } from './codex-threads';
import { harnessEnv, resolveExecutable } from './env';
import { launchHarness } from './launch';
import { baseResult, exitFailure, processFailure } from './outcome';
import { authFailureMessage, firstRefusal, stopOnRefusedCredential } from './refused-credential';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult, PermissionDenials } from './types';

export const CODEX_BIN_ENV = 'THE_LOOP_CODEX_BIN';
export const CODEX_LAST_MESSAGE_FILE = 'last_message.txt';

/**
 * `codex exec --json -o <outputDir>/last_message.txt [...] -` with the prompt on stdin (`-`), or
 * `codex exec ... resume <id> -` to continue a thread. exec's own options go before the `resume`
 * subcommand. codex cannot be told a thread id up front, so a first turn just starts one and the
 * `thread.started` id comes back as conversationId. permissionMode maps to codex's `--sandbox`.
 * `--skip-git-repo-check`: the session's cwd is the user's choice, and a directory that is not a git repository
 * would otherwise fail every turn.
 */
export function codexArgs(req: HarnessRunRequest): string[] {
  const args = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '-o',
    path.join(req.outputDir, CODEX_LAST_MESSAGE_FILE),
  ];
  if (req.options.permissionMode) args.push('--sandbox', req.options.permissionMode);
  args.push(...(req.options.extraArgs ?? []));
  if (req.conversation?.resume) args.push('resume', req.conversation.id);
  args.push('-');
  return args;
}

export const codexHarness: HarnessAdapter = {
  name: 'codex',
  async run(req: HarnessRunRequest): Promise<HarnessRunResult> {
    const executable = resolveExecutable(req, CODEX_BIN_ENV, 'codex');
    const started = Date.now();
    fs.rmSync(path.join(req.outputDir, CODEX_LAST_MESSAGE_FILE), { force: true });
    const refused = stopOnRefusedCredential(req, codexAuthFailureOf);
    try {
      const outcome = await launchHarness('codex', refused.request, executable, codexArgs(req));
      return codexHarness.interpret(req, outcome, Date.now() - started);
    } finally {
      refused.stop();
    }
  },
  interpret(req, outcome, wallClockMs) {
    const executable = resolveExecutable(req, CODEX_BIN_ENV, 'codex');
    const lastMessageFile = path.join(req.outputDir, CODEX_LAST_MESSAGE_FILE);
    const base = baseResult(outcome);
    const events = parseCodexEvents(outcome.stdout);
    const conversationId = events.threadId ?? (req.conversation?.resume ? req.conversation.id : null);
    const rollout = conversationId ? codexRollout(codexHome(harnessEnv('codex', req)), conversationId) : null;
    // the thread's tokens so far: the rollout's count includes what a failed turn was served, --json's does not
    const counted = rollout?.total ? { ...emptyUsage(), ...rollout.total, num_turns: 1 } : events.usage;
    const total = counted ? { ...counted, duration_ms: wallClockMs } : null;
    const tokens =
      total && conversationId
        ? codexTurnUsage(req.sessionDir, conversationId, total, Boolean(req.conversation?.resume))
        : total;
    const { usage, unpricedModels } = priced(req, tokens, rollout?.model ?? null);
    const permissionDenials = refusedCalls(rollout);
    const reported = { conversationId, usage, unpricedModels, permissionDenials };
    const text = readIfExists(lastMessageFile) ?? events.lastAgentMessage ?? '';
    const refused = firstRefusal(outcome.stdout, CODEX_REFUSAL_MENTION, codexAuthFailureOf);
    if (refused && !req.signal?.aborted) {
      // stopped by its watcher, not by the session: a failed turn, not a stop
      const error = authFailureMessage('codex', refused, codexCredentialName(harnessEnv('codex', req)));
      return { ...base, ...reported, aborted: false, success: false, text, error };
    }
    const failure = processFailure(outcome, executable, CODEX_BIN_ENV, req.timeoutMs);
    if (failure) return { ...base, ...reported, success: false, text, error: failure };
    if (outcome.exitCode !== 0) {
      const detail = events.failure ? `codex failed: ${events.failure}` : exitFailure('codex', outcome);
      return { ...base, ...reported, success: false, text, error: detail };
    }
    if (events.failure) {
      return { ...base, ...reported, success: false, text, error: `codex failed: ${events.failure}` };
    }
    // as for claude: a turn whose every tool call was refused could do nothing
    if (permissionDenials?.all) {
      const refused = rollout?.lastTurn.refused.map((call) => call.input).join('; ') ?? '';
      const error = `codex's sandbox refused every command it ran (${permissionDenials.count}: ${refused}); let it write there with harness.codex.permissionMode (--sandbox) or the routine's permission_mode`;
      return { ...base, ...reported, success: false, text, error };
    }
    return { ...base, ...reported, success: true, text, error: null };
  },
};

/**
 * codex reports no cost: the turn's tokens are priced by the model its thread ran (from the rollout), with the
 * configured table. A model with no price, or none found, is named in unpricedModels and costs nothing here.
 */
function priced(
  req: HarnessRunRequest,
  tokens: Usage | null,
  model: string | null,
): { usage: Usage | null; unpricedModels: string[] } {
  if (!tokens) return { usage: null, unpricedModels: [] };
  const price = model ? priceOf(model, req.prices ?? DEFAULT_PRICES) : null;
  if (!price) return { usage: tokens, unpricedModels: [model ?? 'codex (model unknown)'] };
  return { usage: { ...tokens, cost_usd: costOf(tokens, price) }, unpricedModels: [] };
}

/** The turn's commands codex's sandbox refused, as claude reports its refused tool calls; null when none. */
function refusedCalls(rollout: CodexRollout | null): PermissionDenials | null {
  const turn = rollout?.lastTurn;
  if (!turn || turn.refused.length === 0) return null;
  const tools = [...new Set(turn.refused.map((call) => call.tool))];
  return { count: turn.refused.length, tools, all: turn.refused.length >= turn.toolCalls };
}

function readIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
