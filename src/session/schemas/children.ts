import { z } from 'zod';

import { isoTimestamp } from './common';
import { usageSchema } from './usage';

export const childStatuses = ['dispatching', 'running', 'complete', 'failed', 'stopped', 'rejected'] as const;
export type ChildStatus = (typeof childStatuses)[number];

export const childRecordSchema = z.object({
  /** File name inside child_requests/; it blocks redispatch only while dispatching or running. */
  request_file: z.string().min(1),
  session_id: z.string().nullable(),
  status: z.enum(childStatuses),
  reason: z.string().nullable(),
  outcome: z.string().nullable(),
  /** Whole-subtree usage of the child, counted into the parent's ledger. */
  usage: usageSchema.nullable(),
  requested_at: isoTimestamp,
  finished_at: isoTimestamp.nullable(),
  /**
   * `<inode>-<size>-<mtime ms>` of the request file when it was handled: a file whose fingerprint differs
   * from every record of its name is new work (the name was reused).
   */
  request_fingerprint: z.string().nullable().optional(),
  /** The limits the child was started with: its max_cost_usd is capped at what the parent had left. */
  max_iterations: z.number().int().positive().nullable().optional(),
  max_cost_usd: z.number().nonnegative().nullable().optional(),
  started_at: isoTimestamp.nullable().optional(),
});

export const childrenFileSchema = z.object({
  schema_version: z.literal(1),
  children: z.array(childRecordSchema),
});

export type ChildRecord = z.infer<typeof childRecordSchema>;
export type ChildrenFile = z.infer<typeof childrenFileSchema>;
