import { z } from 'zod';

/** goal_check.json: evidence written by a goal-check routine; never a stop switch by itself. */
export const goalCheckFileSchema = z.object({
  goal_met: z.boolean(),
  reason: z.string(),
  schema_version: z.literal(1),
});

export type GoalCheckFile = z.infer<typeof goalCheckFileSchema>;
