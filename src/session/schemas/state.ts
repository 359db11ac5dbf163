import { z } from 'zod';

import { isoTimestamp } from './common';
import { usageSchema } from './usage';

/** `queued`: the session's next step (its set-up or a turn) waits for a free activity slot on its host's worker. */
export const sessionStatuses = ['starting', 'running', 'queued', 'paused', 'stopping', 'stopped'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

export const stopKinds = [
  'control',
  'user',
  'max_iterations',
  'budget',
  'max_duration',
  'consecutive_failures',
  'error',
  'parent',
] as const;
export type StopKind = (typeof stopKinds)[number];

const nonNegativeInt = z.number().int().nonnegative();

export const activeIterationSchema = z.object({
  number: z.number().int().positive(),
  routine_id: z.string().min(1),
  started_at: isoTimestamp,
});

/**
 * Written into state.json by the iteration activity (not the workflow) while it refuses a replacement dispatch
 * because an earlier attempt's orphan cannot be proven gone; the workflow's next projection clears it.
 */
export const refusedDispatchSchema = z.object({
  iteration: z.number().int().positive(),
  routine_id: z.string().min(1),
  reason: z.string().min(1),
  unsettled_workers: nonNegativeInt,
  pids: z.array(z.number().int()),
  salvage_file: z.string().nullable(),
  attempt: z.number().int().positive(),
  at: isoTimestamp,
});

/**
 * Set by the workflow while a fault of the session's files (a full disk, a read-only or forbidden directory) keeps it
 * paused: what failed and where. `loopy resume` clears it and dispatches the blocked turn again. Not always on disk
 * (the fault may be state.json's own): `loopy status` reads it from the workflow first.
 */
export const blockedDispatchSchema = z.object({
  reason: z.string().min(1),
  /** The file or directory that could not be written, when the error named one. */
  path: z.string().nullable(),
  /** The error code: ENOSPC, EROFS, EACCES, ... */
  code: z.string().nullable(),
  /** The turn waiting to be dispatched again; null when the fault came while no turn was running. */
  iteration: z.number().int().positive().nullable(),
  at: isoTimestamp,
});

export const askedDispatchSchema = z.object({
  question: z.string().min(1),
  iteration: z.number().int().positive(),
  at: isoTimestamp,
});

/** A turn failed because its agent was refused its tool calls: the session waits for a person (session.waitOnPermission). */
export const deniedDispatchSchema = z.object({
  /** The harness that was refused (absent in states written before it was recorded: claude). */
  harness: z.string().optional(),
  /** The tools refused, and how many calls. */
  tools: z.array(z.string()),
  count: z.number().int().positive(),
  iteration: z.number().int().positive(),
  at: isoTimestamp,
});

/** The fleet's budget (budget.daily, budget.monthly) is spent: the session waits for a raise or a stop. */
export const budgetDispatchSchema = z.object({
  /** What was spent of what, and the command that answers it. */
  detail: z.string().min(1),
  at: isoTimestamp,
});

export const historyEntrySchema = z.object({
  iteration: z.number().int().positive(),
  routine_id: z.string().min(1),
  started_at: isoTimestamp,
  finished_at: isoTimestamp,
  success: z.boolean(),
  error: z.string().nullable(),
  harness_run_id: z.string().nullable(),
  usage: usageSchema.nullable(),
  recovered: z.boolean(),
});

/**
 * The sums of the history entries that have left state.json's `history` (which keeps the newest ones; history.jsonl
 * holds them all), kept by the projection's writer, not the workflow: what `loopy status` counts without reading
 * every turn.
 */
export const earlierHistorySchema = z.object({
  /** Every entry up to this iteration is summed here, and none after it. */
  through: nonNegativeInt,
  ok: nonNegativeInt,
  failed: nonNegativeInt,
  /** Models without a price that those turns ran (as their result.json files name them). */
  unpriced_models: z.array(z.string()),
});

export const stopStateSchema = z.object({
  kind: z.enum(stopKinds).nullable(),
  reason: z.string().nullable(),
  requested_by: z.string().nullable(),
  at: isoTimestamp.nullable(),
});

/** state.json: the coordinator's durable projection; events.jsonl is only a best-effort echo of it. */
export const sessionStateFileSchema = z.object({
  schema_version: z.literal(1),
  session_id: z.string().min(1),
  status: z.enum(sessionStatuses),
  /** Number of the last dispatched iteration; 0 before the first. */
  iteration: nonNegativeInt,
  dispatch: z.object({
    active_iteration: activeIterationSchema.nullable(),
    paused: z.boolean(),
    next_routine_id: z.string().nullable(),
    /** Set while crash recovery refuses to dispatch a replacement (see refusedDispatchSchema). */
    refused: refusedDispatchSchema.nullable().optional(),
    /** Set while a file fault keeps the session paused (see blockedDispatchSchema). */
    blocked: blockedDispatchSchema.nullable().optional(),
    /** Set while the session waits for the answer to the question a turn's reply ended on (paused until then). */
    asked: askedDispatchSchema.nullable().optional(),
    /** Set while the fleet's budget holds the next turn back (paused until `the-loop budget raise` or a resume). */
    budget: budgetDispatchSchema.nullable().optional(),
    /** Set while a turn's refused tool calls keep the session paused (until `loopy resume` or `loopy update`). */
    denied: deniedDispatchSchema.nullable().optional(),
  }),
  /** The newest turns (session/history.ts: STATE_HISTORY_ENTRIES); every turn in files without `earlier_history`. */
  history: z.array(historyEntrySchema),
  /** Absent in files written before history.jsonl (their `history` holds every turn) and in the workflow's state. */
  earlier_history: earlierHistorySchema.optional(),
  stop: stopStateSchema,
  active_child_session_id: z.string().nullable(),
  usage: z.object({ own: usageSchema, children: usageSchema, total: usageSchema }),
  consecutive_failures: nonNegativeInt,
  started_at: isoTimestamp,
  updated_at: isoTimestamp,
  /**
   * Which projection of the workflow's state this is: each one the workflow sends is numbered one higher, and the
   * writer never replaces the file with a lower number (a late or retried activity carries an older state).
   * Absent in files written before projections were numbered.
   */
  projection: nonNegativeInt.optional(),
});

/**
 * What a list of many sessions (loopy list, inbox) reads of state.json: the same schema without the history, which
 * grows with every turn and is most of what checking the whole file costs.
 */
export const sessionSummarySchema = sessionStateFileSchema.pick({
  status: true,
  iteration: true,
  dispatch: true,
  stop: true,
  usage: true,
  started_at: true,
});

export type BlockedDispatch = z.infer<typeof blockedDispatchSchema>;
export type EarlierHistory = z.infer<typeof earlierHistorySchema>;
export type DeniedDispatch = z.infer<typeof deniedDispatchSchema>;
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
export type SessionStateFile = z.infer<typeof sessionStateFileSchema>;
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
