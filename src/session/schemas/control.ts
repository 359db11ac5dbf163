import { z } from 'zod';

/**
 * control.json: the stop switch. Agents edit it by hand, so unknown keys survive a round trip;
 * only `state` has to be right.
 */
export const controlFileSchema = z.looseObject({
  state: z.enum(['running', 'stopped']),
  reason: z.string().nullable().default(null),
  updated_at: z.string().optional(),
  updated_by: z.string().optional(),
});

export type ControlFile = z.infer<typeof controlFileSchema>;
