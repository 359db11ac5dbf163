import { z } from 'zod';

import { harnessNameSchema } from './common';

/** child_requests/*.json: written by an agent to ask for a child session. */
export const childRequestSchema = z.strictObject({
  goal: z.string().trim().min(1),
  /** Routines YAML for the child, relative to the parent's session directory. */
  workflows: z.string().min(1).optional(),
  max_iterations: z.number().int().min(1).optional(),
  max_cost_usd: z.number().positive().optional(),
  harness: harnessNameSchema.optional(),
});

export type ChildRequest = z.infer<typeof childRequestSchema>;
