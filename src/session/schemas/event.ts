import { z } from 'zod';

import { isoTimestamp } from './common';

export const sessionEventTypes = [
  'session_started',
  'iteration_started',
  'iteration_finished',
  'iteration_abandoned',
  'iteration_recovered',
  'session_paused',
  'session_resumed',
  'stop_requested',
  'user_update',
  'session_stopped',
  'child_dispatched',
  'child_finished',
  'child_rejected',
  'projection_repaired',
  'session_moved',
  'move_refused',
  'session_blocked',
  'conversation_reset',
  'question_asked',
  'budget_reached',
  'permission_refused',
] as const;
export type SessionEventType = (typeof sessionEventTypes)[number];

/** One line of events.jsonl (v1). Readers dedupe by `seq`; gaps are allowed. */
export const sessionEventSchema = z.object({
  v: z.literal(1),
  seq: z.number().int().min(1),
  ts: isoTimestamp,
  session_id: z.string().min(1),
  type: z.enum(sessionEventTypes),
  iteration: z.number().int().nonnegative().optional(),
  routine_id: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export type SessionEvent = z.infer<typeof sessionEventSchema>;
