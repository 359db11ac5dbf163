import { z } from 'zod';

/**
 * What a hosted pane's hooks last said, kept by the worker that hosts it (one file per pane in the hook
 * channel's directory, so that a restarted worker still knows a pane that became ready under its predecessor).
 * Written by src/worker/hosted-turns.ts, read by delivery.
 */
export const paneStateSchema = z.strictObject({
  schema_version: z.literal(1),
  /** Whose pane this is: a restarted worker re-admits the hooks of its predecessor's panes by it. */
  work_item: z.string().optional(),
  /** A `ready` report came since the pane was (re)spawned. */
  ready: z.boolean(),
  /** A turn began (`turn-started`) and has not ended. */
  turn_running: z.boolean(),
  /** The prompt of the last turn that began, to confirm a paste was submitted. */
  last_prompt: z.string().nullable(),
  /** Counts turn-started reports: a paste is confirmed by a turn that began after it. */
  turns_started: z.number().int().nonnegative(),
  /**
   * A dialog waits for a human (permission or other), the turn stopped moving (stuck), or the last reply asked a
   * question (the input box waits for its answer: the next event). An idle input box alone is not a wait.
   */
  waiting: z
    .strictObject({ reason: z.enum(['permission', 'other', 'stuck', 'question']), message: z.string() })
    .nullable(),
  harness_session_id: z.string().nullable(),
  /** The delivered turn whose activity completes when the agent's turn ends. */
  pending: z
    .strictObject({
      work_item: z.string(),
      event_id: z.string(),
      iteration: z.number().int().positive(),
      iteration_dir: z.string(),
      session_dir: z.string(),
      /** The tmux target and socket: the turn fails when its pane dies. */
      target: z.string(),
      socket: z.string(),
    })
    .nullable(),
  /**
   * The conversation's transcript, and its size when the running turn began: a person's Esc ends a turn with no Stop
   * hook, and leaves an interruption marker after that point. Absent before a turn began under this plugin.
   * `event_id`: the delivery the turn began for (a turn cut short counts what it spent only if it began).
   */
  transcript: z
    .strictObject({
      path: z.string(),
      offset: z.number().int().nonnegative(),
      event_id: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  /**
   * The pending turn's end as its turn-ended report told it, kept from the moment it arrived until the turn's end is
   * recorded and its activity completed: a worker killed meanwhile leaves it to the next, which finishes the turn.
   * `recorded`: its result.json is written, and what it says is what the completion carries.
   */
  ending: z
    .strictObject({
      event_id: z.string(),
      reply: z.string().nullable(),
      transcript: z.string().nullable(),
      recorded: z.boolean(),
    })
    .nullable()
    .optional(),
  /** claude's debug log's size when the running turn began: a credential refused after it fails the turn. */
  debug_offset: z.number().int().nonnegative().optional(),
  /**
   * The newest report applied in full (when its hook ran, and what it said). One older than it is old news: a hook
   * that found no worker for its retry window spooled it, and a worker replays the spool whenever it sweeps, after
   * reports that came later. The same report again is one a worker applied in full before it died answering it.
   * Permission prompts are not kept here: their hook waits for its answer, and is answered again when it asks again.
   */
  last_report: z.strictObject({ at: z.string(), event: z.string() }).nullable().optional(),
  /** The last turn that ended with a result: a retried delivery of the same event returns it. */
  last_ended: z.strictObject({ event_id: z.string(), iteration_dir: z.string() }).nullable(),
});
export type PaneState = z.infer<typeof paneStateSchema>;

/**
 * The pending turn has begun: claude took its prompt (its turn-started report), and it runs or has ended. A pending
 * turn that has not begun was pasted, or was about to be, by a delivery that may have died on the way.
 */
export const pendingBegan = (state: PaneState): boolean =>
  state.pending !== null &&
  (state.turn_running ||
    state.transcript?.event_id === state.pending.event_id ||
    state.ending?.event_id === state.pending.event_id);

/** A report a pane's state has seen already, or news older than what it has seen (see `last_report`). */
export function reportIsStale(state: PaneState, report: { at: string; event: string }): boolean {
  const last = state.last_report;
  if (!last) return false;
  const at = Date.parse(report.at);
  const lastAt = Date.parse(last.at);
  return at < lastAt || (at === lastAt && report.event === last.event);
}

/** A dialog shows in the pane: pasting would answer it. (A question in the reply waits at the input box instead.) */
export const dialogShows = (state: PaneState | null): boolean =>
  state?.waiting != null && state.waiting.reason !== 'question';

export const freshPaneState = (): PaneState => ({
  schema_version: 1,
  ready: false,
  turn_running: false,
  last_prompt: null,
  turns_started: 0,
  waiting: null,
  harness_session_id: null,
  pending: null,
  last_ended: null,
});

export type PendingTurn = NonNullable<PaneState['pending']>;
export type EndedTurn = NonNullable<PaneState['last_ended']>;

/** A prompt answered without the workflow: in the terminal (decision unknown), by the policy, or by the timeout. */
export interface PromptAnswer {
  decision: 'allow' | 'deny' | null;
  by: string;
  via: 'terminal' | 'policy' | 'timeout';
  asked: string | null;
}

/** What the plugin's PermissionRequest hook is told (plugin/hooks/ask-permission.mjs). */
export interface PermissionDecision {
  decision: 'allow' | 'deny';
  /** With deny: what claude is told. */
  message: string | null;
  /** With allow: claude adds the prompt's rule to the session's allowed tools. */
  always: boolean;
}

/** The worker's side of hook-driven turns, as the host layer uses it (spawn and delivery). */
export interface HostedTurns {
  /**
   * Opens the pane's hook session (a fresh pane: not ready, no turn); the env the pane needs to report, and claude's
   * own arguments for it (its debug log, where a refused credential shows).
   */
  openPane(workItem: string): Promise<{ env: Record<string, string>; args: string[] }>;
  /** The hooks refuse this pane's reports from now on; a turn under way ends as failed. */
  closePane(workItem: string): Promise<void>;
  paneState(workItem: string): Promise<PaneState | null>;
  /**
   * Keeps `taskToken` (also in the iteration dir) until the turn ends: the turn-ended report completes the
   * activity with its reply; meanwhile the activity is heartbeated while the pane lives, and failed when it dies.
   * A turn of that event that has already ended is returned instead, and nothing is awaited.
   */
  awaitTurn(workItem: string, pending: PendingTurn, taskToken: Uint8Array): Promise<EndedTurn | null>;
  /**
   * Answers the permission prompt the pane's PermissionRequest hook holds: the decision becomes the hook's. false
   * when no prompt is held (none showed, or it was answered in the terminal).
   */
  /** `answered`: the held prompt's hook got it; `terminal`: a person answered it there first; `none`: none held. */
  answerPermission(workItem: string, answer: PermissionDecision): Promise<'answered' | 'terminal' | 'none'>;
  /** A paste that was never submitted: the turn is not awaited any more (its event stays queued). */
  dropTurn(workItem: string): Promise<void>;
}
