import { z } from 'zod';

const count = z.number().nonnegative().default(0);

/** Token and cost ledger of one harness turn, or a sum of them. Missing fields read as 0. */
export const usageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  cost_usd: count,
  num_turns: count,
  duration_ms: count,
});

export type Usage = z.infer<typeof usageSchema>;
