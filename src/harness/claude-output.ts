import { z } from 'zod';

import type { Usage } from '../session/schemas/usage';

const tokens = z.number().nonnegative().optional();

/** The single JSON object `claude -p --output-format json` prints (cursor-agent prints the same shape). */
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
  num_turns: z.number().nonnegative().optional(),
  duration_ms: z.number().nonnegative().optional(),
});

export type ClaudeResult = z.infer<typeof claudeResultSchema>;

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

export function claudeUsage(result: ClaudeResult, wallClockMs: number): Usage {
  return {
    input_tokens: result.usage?.input_tokens ?? 0,
    output_tokens: result.usage?.output_tokens ?? 0,
    cache_read_input_tokens: result.usage?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: result.usage?.cache_creation_input_tokens ?? 0,
    cost_usd: result.total_cost_usd ?? 0,
    num_turns: result.num_turns ?? 0,
    duration_ms: result.duration_ms ?? wallClockMs,
  };
}
