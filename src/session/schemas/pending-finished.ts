import { z } from 'zod';

import { isoTimestamp } from './common';
import { resultFileSchema } from './result';
import { usageSchema } from './usage';

/** pending_finished_request.json: the handoff written after result.json so a retried attempt can recover it. */
export const pendingFinishedRequestSchema = z.object({
  session_id: z.string().min(1),
  iteration: z.number().int().positive(),
  routine_id: z.string().min(1),
  attempt: z.number().int().positive(),
  result: resultFileSchema,
  usage: usageSchema.nullable(),
  written_at: isoTimestamp,
});
