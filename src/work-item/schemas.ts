import { z } from 'zod';
import { usageSchema } from '../session/schemas/usage';

const iso = z.iso.datetime({ offset: true });

export const controlCommands = ['start', 'pause', 'resume', 'stop', 'cleanup'] as const;
export type ControlCommand = (typeof controlCommands)[number];

export const recordStatuses = ['active', 'paused', 'closed'] as const;
export type RecordStatus = (typeof recordStatuses)[number];

/** Why a session waits for a person (src/workflows/work-item/messages.ts WaitingReason). */
export const waitingReasons = ['permission', 'question', 'gate', 'blocked', 'stuck', 'budget'] as const;

/** A session's wait for a person: why, what is asked (one line), since when. */
export const waitingSchema = z.object({
  reason: z.enum(waitingReasons),
  detail: z.string(),
  since: iso,
});
export type Waiting = z.infer<typeof waitingSchema>;

export const workItemHarnesses = ['claude', 'cursor'] as const;
export type WorkItemHarness = (typeof workItemHarnesses)[number];

export const tmuxRecordSchema = z.object({
  socket: z.string().min(1),
  session: z.string().min(1),
  created_at: iso,
  /** The argv the harness was launched with (without the env prefix): restart relaunches on it. */
  command: z.array(z.string()),
});

export const checkoutRecordSchema = z.object({
  strategy: z.enum(['worktree', 'clone']),
  path: z.string().min(1),
  /** The shared per-repository clone a worktree belongs to; null under the clone strategy. */
  clone: z.string().nullable(),
  branch: z.string().min(1),
});

const spentSchema = z.object({
  usage: usageSchema,
  /** Models its turns used that have no price: their tokens are counted, their cost is not (shown `unpriced`). */
  unpriced_models: z.array(z.string()),
  /** The last turn added (each turn counts once, however often it is reported). */
  last_counted: z.object({ session_dir: z.string().min(1), iteration: z.number().int().positive() }),
});
export type Spent = z.infer<typeof spentSchema>;

/**
 * <registryDir>/<slug>.json: one human-inspectable file per session on this machine. Compiled (zod's generated
 * fast path; same schema, same messages) because the board and the lists parse every record they read.
 */
const registryRecordObject = z.object({
  schema_version: z.literal(1),
  work_item: z.string().min(1),
  slug: z.string().min(1),
  status: z.enum(recordStatuses),
  harness: z.enum(workItemHarnesses),
  /** The conversation the harness resumes (Claude session id, Cursor chat id); null until one exists. */
  harness_session_id: z.string().nullable(),
  /** Directory the session runs in; resume is scoped to it. */
  cwd: z.string().nullable(),
  registered_at: iso,
  updated_at: iso,
  workflow_id: z.string().min(1),
  run_id: z.string().nullable(),
  /** When the run that wrote this record asked to (activity scheduled time): a terminated older run never overwrites a newer one. */
  opened_ms: z.number().int().nonnegative().optional(),
  host_queue: z.string().min(1),
  session_dir: z.string().min(1),
  tmux: tmuxRecordSchema.nullable(),
  checkout: checkoutRecordSchema.nullable(),
  /** Refs of pull requests recorded as delivering this work item (link-pr is the only writer). */
  pull_requests: z.array(z.string()),
  last_control: z.object({ command: z.enum(controlCommands), at: iso }).nullable(),
  closed_at: iso.nullable(),
  closed_reason: z.string().nullable(),
  /** What the session waits on a person for, as its workflow last recorded it; null or absent: nobody. */
  waiting: waitingSchema.nullable().optional(),
  /** What the work item's hosted turns have spent, added up as each turn ends; absent before the first. */
  spent: spentSchema.optional(),
});
export const registryRecordSchema = z.compile(registryRecordObject);
export type RegistryRecord = z.infer<typeof registryRecordSchema>;

/** What `sessions list` shows of a record, in its list cache (src/work-item/registry.ts). */
export const listedRecordSchema = registryRecordObject.pick({
  work_item: true,
  slug: true,
  status: true,
  harness: true,
  harness_session_id: true,
  cwd: true,
  tmux: true,
  pull_requests: true,
  last_control: true,
  waiting: true,
  spent: true,
});
export type ListedRecord = z.infer<typeof listedRecordSchema>;
export type CheckoutRecord = z.infer<typeof checkoutRecordSchema>;

export const controlEntrySchema = z.object({
  command: z.enum(controlCommands),
  at: iso,
  by: z.string(),
  via: z.enum(['cli', 'comment', 'closure', 'board']),
});

/** <state.root>/portable/<slug>.json: what outlives this machine — control, poll, graph. */
export const portableRecordSchema = z.object({
  schema_version: z.literal(1),
  work_item: z.string().min(1),
  control: z
    .object({
      /** Armed: events spawn or resume the session; disarmed items wait for an explicit start. */
      armed: z.boolean(),
      last: controlEntrySchema,
      history: z.array(controlEntrySchema),
    })
    .nullable(),
  /** The poller's ledger (owned by the GitHub bridge); kept opaque here. */
  poll: z.looseObject({}).nullable(),
  /** The process graph's pointer; cleanup moves it to the terminal `cleanup` node. */
  graph: z.looseObject({ node: z.string(), at: iso }).nullable(),
  /** The conversation the last spawn ran (a new one replaces an id claude could not resume); absent before one. */
  conversation: z
    .object({ harness: z.enum(workItemHarnesses), id: z.string(), cwd: z.string(), at: iso })
    .optional(),
  /** The work item's chat thread (a Slack thread): another machine posts into it instead of opening a second one. */
  channel_thread: z
    .object({ kind: z.literal('slack'), thread_id: z.string().min(1), permalink: z.string().min(1), at: iso })
    .optional(),
  updated_at: iso,
});
export type PortableRecord = z.infer<typeof portableRecordSchema>;

export const workItemEventTypes = [
  'session.registered',
  'session.opened',
  'session.spawned',
  'session.spawn_failed',
  'session.respawned',
  'session.paused',
  'session.resumed',
  'session.closed',
  'session.reset',
  'session.cleanup',
  'session.restarted',
  'control.recorded',
  'event.queued',
  'event.delivered',
  'event.failed',
  'event.dropped',
  'tmux.lost',
  'pr.linked',
  'comment.posted',
  'comment.failed',
  'graph.entered',
  'thread.opened',
  'wait.began',
  'wait.ended',
  'permission.answered',
  'turn.spent',
] as const;
export type WorkItemEventType = (typeof workItemEventTypes)[number];

/** One line of <state.root>/events/<slug>.jsonl (v1). Readers tolerate a torn last line and duplicates. */
export const workItemEventSchema = z.object({
  v: z.literal(1),
  ts: iso,
  work_item: z.string().min(1),
  type: z.enum(workItemEventTypes),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type WorkItemEvent = z.infer<typeof workItemEventSchema>;
