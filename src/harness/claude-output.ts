import { z } from 'zod';

import type { Usage } from '../session/schemas/usage';
import { AUTH_STATUSES, firstRefusal, type AuthFailure } from './refused-credential';
import type { PermissionDenials } from './types';

const tokens = z.number().nonnegative().optional();

/**
 * The result line `claude -p --output-format stream-json` ends on (the single object of `--output-format json`, which
 * cursor-agent prints in the same basic shape).
 * Besides the basics, the real CLI (2.1.x) reports: `permission_denials` (tool calls it refused, while `subtype` stays
 * `success`), `api_error_status` (an API error comes as `subtype: success` + `is_error: true`, the message in
 * `result`), `errors` (e.g. the budget reason, with no `result`), and `modelUsage` (per-model tokens and cost; on a
 * budget stop `usage` is all zeros and only `modelUsage` has the tokens).
 */
export const claudeResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  session_id: z.string().optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  usage: z
    .looseObject({
      input_tokens: tokens,
      output_tokens: tokens,
      cache_read_input_tokens: tokens,
      cache_creation_input_tokens: tokens,
    })
    .optional(),
  modelUsage: z
    .record(
      z.string(),
      z.looseObject({
        inputTokens: tokens,
        outputTokens: tokens,
        cacheReadInputTokens: tokens,
        cacheCreationInputTokens: tokens,
      }),
    )
    .optional(),
  num_turns: z.number().nonnegative().optional(),
  duration_ms: z.number().nonnegative().optional(),
  api_error_status: z.number().nullable().optional(),
  errors: z.array(z.unknown()).optional(),
  permission_denials: z.array(z.looseObject({ tool_name: z.string().optional() })).optional(),
});

export type ClaudeResult = z.infer<typeof claudeResultSchema>;

/** The subtype of a turn the CLI ended because --max-budget-usd was reached (after the call that went over). */
export const CLAUDE_BUDGET_SUBTYPE = 'error_max_budget_usd';

/**
 * Finds the result object in stdout. The CLI prints one JSON document, but wrappers and hooks may print
 * lines before it, so the last line that parses as a result wins.
 */
export function parseClaudeStdout(stdout: string): ClaudeResult | null {
  const candidates = [stdout.trim(), ...stdout.trim().split('\n').reverse()];
  for (const candidate of candidates) {
    if (!candidate.startsWith('{')) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(candidate);
    } catch {
      continue;
    }
    const parsed = claudeResultSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
  }
  return null;
}

/** Tokens from `modelUsage` (every model the turn billed; the only place they are on a budget stop), else `usage`. */
export function claudeUsage(result: ClaudeResult, wallClockMs: number): Usage {
  const models = Object.values(result.modelUsage ?? {});
  const sum = (key: 'inputTokens' | 'outputTokens' | 'cacheReadInputTokens' | 'cacheCreationInputTokens') =>
    models.reduce((total, model) => total + (model[key] ?? 0), 0);
  const fromModels = models.length > 0;
  return {
    input_tokens: fromModels ? sum('inputTokens') : (result.usage?.input_tokens ?? 0),
    output_tokens: fromModels ? sum('outputTokens') : (result.usage?.output_tokens ?? 0),
    cache_read_input_tokens: fromModels
      ? sum('cacheReadInputTokens')
      : (result.usage?.cache_read_input_tokens ?? 0),
    cache_creation_input_tokens: fromModels
      ? sum('cacheCreationInputTokens')
      : (result.usage?.cache_creation_input_tokens ?? 0),
    cost_usd: result.total_cost_usd ?? 0,
    num_turns: result.num_turns ?? 0,
    duration_ms: result.duration_ms ?? wallClockMs,
  };
}

/**
 * The tool calls the CLI refused, or null when it reported none. `all` says whether every tool call of the turn was
 * refused: the CLI counts one turn for its first reply and one more per tool call (verified with 2.1.197), so a turn
 * made `num_turns - 1` tool calls.
 */
export function claudePermissionDenials(result: ClaudeResult): PermissionDenials | null {
  const denials = result.permission_denials ?? [];
  if (denials.length === 0) return null;
  const tools = [...new Set(denials.map((denial) => denial.tool_name ?? 'unknown'))];
  const toolCalls = Math.max(0, (result.num_turns ?? 1) - 1);
  return { count: denials.length, tools, all: denials.length >= toolCalls };
}

/** What went wrong, in words, from `is_error`, `subtype`, `api_error_status`, `result` and `errors`. */
export function claudeErrorMessage(name: string, result: ClaudeResult): string {
  const reasons = (result.errors ?? []).map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  const detail = [result.result?.trim(), ...reasons]
    .filter((s): s is string => Boolean(s))
    .join('; ')
    .slice(0, 500);
  if (result.subtype === CLAUDE_BUDGET_SUBTYPE) {
    const cost = result.total_cost_usd ?? 0;
    return `${name} stopped at its budget (--max-budget-usd) after the turn cost $${cost.toFixed(2)}${detail ? `: ${detail}` : ''}`;
  }
  if (typeof result.api_error_status === 'number') {
    return `${name}: the model API answered ${result.api_error_status}${detail ? `: ${detail}` : ''}`;
  }
  const kind = result.subtype === 'success' ? 'failed' : `failed (${result.subtype})`;
  return `${name} ${kind}${detail ? `: ${detail}` : ''}`;
}

/** A line of claude's stream-json output: claude waits to send a model call again after the API refused it. */
const apiRetrySchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  error_status: z.number().nullable().optional(),
  error: z.string().optional(),
});

/** A model call refused for its credential, from one stream-json line (an `api_retry`); null for any other line. */
export function authFailureOf(line: unknown): AuthFailure | null {
  const parsed = apiRetrySchema.safeParse(line);
  if (!parsed.success) return null;
  const status = parsed.data.error_status;
  if (typeof status !== 'number' || !AUTH_STATUSES.includes(status)) return null;
  return { status, error: parsed.data.error ?? 'authentication_failed' };
}

/** The first model call of a run's stream-json output that was refused for its credential, or null. */
export function claudeAuthFailure(stdout: string): AuthFailure | null {
  return firstRefusal(stdout, '"api_retry"', authFailureOf);
}

/** Which credential claude was given, by the variable that holds it (the first it reads). */
export function claudeCredentialName(env: NodeJS.ProcessEnv): string {
  for (const name of ['ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN']) {
    if (env[name]) return name;
  }
  return 'ANTHROPIC_API_KEY';
}
