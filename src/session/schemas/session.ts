import { z } from 'zod';

import { harnessNameSchema, isoTimestamp } from './common';

/** session.json: written when the session directory is created; `host_queue` is rewritten when the session moves. */
export const sessionFileSchema = z.object({
  session_id: z.string().min(1),
  goal_hash: z.string().regex(/^[0-9a-f]{12}$/),
  created_at: isoTimestamp,
  cwd: z.string().min(1),
  workflow_id: z.string().min(1),
  task_queue: z.string().min(1),
  host_queue: z.string().min(1),
  harness: harnessNameSchema,
  parent_session_id: z.string().nullable(),
  routines_file: z.string().nullable(),
});

export type SessionFile = z.infer<typeof sessionFileSchema>;
