import { z } from 'zod';

/** result.json: the normalized payload of one iteration; `success` means the harness ran, not that the work is good. */
export const resultFileSchema = z.strictObject({
  success: z.boolean(),
  text: z.string(),
  error: z.string().nullable(),
  harness_run_id: z.string().nullable(),
  harness_output_dir: z.string().nullable(),
});

export type ResultFile = z.infer<typeof resultFileSchema>;
