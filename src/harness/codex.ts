import * as fs from 'node:fs';
import * as path from 'node:path';

import { parseCodexEvents } from './codex-output';
import { codexTurnUsage } from './codex-threads';
import { resolveExecutable } from './env';
import { launchHarness } from './launch';
import { baseResult, exitFailure, processFailure } from './outcome';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from './types';

export const CODEX_BIN_ENV = 'THE_LOOP_CODEX_BIN';
export const CODEX_LAST_MESSAGE_FILE = 'last_message.txt';

/**
 * `codex exec --json -o <outputDir>/last_message.txt [...] -` with the prompt on stdin (`-`), or
 * `codex exec ... resume <id> -` to continue a thread. exec's own options go before the `resume`
 * subcommand. codex cannot be told a thread id up front, so a first turn just starts one and the
 * `thread.started` id comes back as conversationId. permissionMode maps to codex's `--sandbox`.
 */
export function codexArgs(req: HarnessRunRequest): string[] {
  const args = ['exec', '--json', '-o', path.join(req.outputDir, CODEX_LAST_MESSAGE_FILE)];
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
    const outcome = await launchHarness(req, executable, codexArgs(req));
    return codexHarness.interpret(req, outcome, Date.now() - started);
  },
  interpret(req, outcome, wallClockMs) {
    const executable = resolveExecutable(req, CODEX_BIN_ENV, 'codex');
    const lastMessageFile = path.join(req.outputDir, CODEX_LAST_MESSAGE_FILE);
    const base = baseResult(outcome);
    const events = parseCodexEvents(outcome.stdout);
    const conversationId = events.threadId ?? (req.conversation?.resume ? req.conversation.id : null);
    const total = events.usage ? { ...events.usage, duration_ms: wallClockMs } : null;
    const usage =
      total && conversationId
        ? codexTurnUsage(req.sessionDir, conversationId, total, Boolean(req.conversation?.resume))
        : total;
    const text = readIfExists(lastMessageFile) ?? events.lastAgentMessage ?? '';
    const failure = processFailure(outcome, executable, CODEX_BIN_ENV, req.timeoutMs);
    if (failure) return { ...base, success: false, text, error: failure, conversationId, usage };
    if (outcome.exitCode !== 0) {
      const detail = events.failure ? `codex failed: ${events.failure}` : exitFailure('codex', outcome);
      return { ...base, success: false, text, error: detail, conversationId, usage };
    }
    if (events.failure) {
      return {
        ...base,
        success: false,
        text,
        error: `codex failed: ${events.failure}`,
        conversationId,
        usage,
      };
    }
    return { ...base, success: true, text, error: null, conversationId, usage };
  },
};

function readIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
