import { z } from 'zod';

import { usageSchema, type Usage } from '../session/schemas/usage';
import { launchHarness } from './launch';
import { baseResult, exitFailure, processFailure } from './outcome';
import { shellQuote } from './shell-quote';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from './types';

export const COMMAND_LINE_PLACEHOLDERS = [
  'prompt_file',
  'session_dir',
  'iteration_dir',
  'goal_file',
] as const;

export function renderCommandLine(commandLine: string, req: HarnessRunRequest): string {
  const values: Record<(typeof COMMAND_LINE_PLACEHOLDERS)[number], string> = {
    prompt_file: req.promptFile,
    session_dir: req.sessionDir,
    iteration_dir: req.iterationDir,
    goal_file: req.goalFile,
  };
  return commandLine.replace(/\{(prompt_file|session_dir|iteration_dir|goal_file)\}/g, (_m, name: string) =>
    shellQuote(values[name as keyof typeof values]),
  );
}

const usageLineSchema = z
  .looseObject({ usage: usageSchema.partial().optional(), cost_usd: z.number().nonnegative().optional() })
  .refine((v) => v.usage !== undefined || v.cost_usd !== undefined);

/** A last stdout line like {"usage": {...}, "cost_usd": 0.12} reports usage and is not part of the text. */
export function splitUsageLine(stdout: string): { text: string; usage: Usage | null } {
  const body = stdout.replace(/\n+$/, '');
  const cut = body.lastIndexOf('\n');
  const last = body.slice(cut + 1).trim();
  if (!last.startsWith('{')) return { text: stdout, usage: null };
  let raw: unknown;
  try {
    raw = JSON.parse(last);
  } catch {
    return { text: stdout, usage: null };
  }
  const parsed = usageLineSchema.safeParse(raw);
  if (!parsed.success) return { text: stdout, usage: null };
  const usage = usageSchema.parse({
    ...parsed.data.usage,
    cost_usd: parsed.data.cost_usd ?? parsed.data.usage?.cost_usd,
  });
  return { text: cut === -1 ? '' : `${body.slice(0, cut)}\n`, usage };
}

/**
 * Any program as a harness: `/bin/sh -c <commandLine>` with {placeholders} shell-quoted, the prompt also
 * on stdin, stdout as the result text, exit 0 as success. There is no conversation to continue.
 */
export const commandHarness: HarnessAdapter = {
  name: 'command',
  async run(req: HarnessRunRequest): Promise<HarnessRunResult> {
    const commandLine = req.options.commandLine;
    if (!commandLine) {
      return {
        success: false,
        text: '',
        error: 'the command harness needs a command line (harness_options.command_line)',
        exitCode: null,
        signal: null,
        conversationId: null,
        usage: null,
        permissionDenials: null,
        budgetExceeded: false,
        timedOut: false,
        aborted: false,
      };
    }
    const started = Date.now();
    const outcome = await launchHarness('command', req, '/bin/sh', [
      '-c',
      renderCommandLine(commandLine, req),
    ]);
    return commandHarness.interpret(req, outcome, Date.now() - started);
  },
  interpret(req, outcome, wallClockMs) {
    const base = baseResult(outcome);
    const { text, usage: reported } = splitUsageLine(outcome.stdout);
    const usage = reported ? { ...reported, duration_ms: reported.duration_ms || wallClockMs } : null;
    const failure = processFailure(outcome, '/bin/sh', null, req.timeoutMs);
    if (failure) return { ...base, success: false, text, error: failure, usage };
    if (outcome.exitCode !== 0) {
      const hint = outcome.exitCode === 127 ? ' (command not found?)' : '';
      return { ...base, success: false, text, error: `${exitFailure('command', outcome)}${hint}`, usage };
    }
    return { ...base, success: true, text, error: null, usage };
  },
};
