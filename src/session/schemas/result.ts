import { z } from 'zod';
import { usageSchema } from './usage';

/** result.json: the normalized payload of one iteration; `success` means the harness ran, not that the work is good. */
export const resultFileSchema = z.strictObject({
  success: z.boolean(),
  text: z.string(),
  error: z.string().nullable(),
  harness_run_id: z.string().nullable(),
  harness_output_dir: z.string().nullable(),
  /** The harness's own conversation id (claude's session_id, codex's thread id), when it reported one. */
  harness_session_id: z.string().nullable().optional(),
  /** Tool calls the harness refused for lack of permission (claude's permission_denials). */
  permission_denials: z
    .strictObject({ count: z.number().int().nonnegative(), tools: z.array(z.string()) })
    .optional(),
  /** A hosted turn's tokens and cost, read from its transcript (a goal turn's are in the session's state). */
  usage: usageSchema.optional(),
  /** Models the turn used that the price table has no price for: its cost_usd leaves them out. */
  unpriced_models: z.array(z.string()).optional(),
});

export type ResultFile = z.infer<typeof resultFileSchema>;
