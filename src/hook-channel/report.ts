import { z } from 'zod';

/**
 * What a hosted session's hooks tell the worker that hosts it, one report per hook run (written by
 * plugin/hooks/lib.mjs `reportFor`, read by the hook channel). Harness-neutral: Claude Code's SessionStart,
 * UserPromptSubmit, Stop and Notification map to ready, turn-started, turn-ended and waiting.
 */
const common = {
  schema_version: z.literal(1),
  harness: z.string().min(1),
  /** The harness's own conversation id (Claude Code's session_id), when it sent one. */
  harness_session_id: z.string().nullable(),
  cwd: z.string().nullable(),
  /** When the hook ran. */
  at: z.iso.datetime({ offset: true }),
};

export const hookReportSchema = z.discriminatedUnion('event', [
  /** The pane is ready for input. `source`: startup, resume, clear or compact. */
  z.object({ ...common, event: z.literal('ready'), source: z.string().nullable() }),
  /** A turn began with this prompt; the conversation's transcript (absent from older plugins). */
  z.object({
    ...common,
    event: z.literal('turn-started'),
    prompt: z.string(),
    transcript_path: z.string().nullable().optional(),
  }),
  /** The turn ended; the reply is the last assistant message of the transcript (null when it had no text). */
  z.object({
    ...common,
    event: z.literal('turn-ended'),
    last_assistant_message: z.string().nullable(),
    transcript_path: z.string().nullable(),
  }),
  /** A permission prompt shows (PermissionRequest): the hook waits for the worker's answer. */
  z.object({
    ...common,
    event: z.literal('permission'),
    tool_name: z.string(),
    /** What the call asks to do, one line (its command, its file). */
    summary: z.string(),
  }),
  /** A dialog waits for a human: a permission prompt, or the input box idle for a while. */
  z.object({
    ...common,
    event: z.literal('waiting'),
    reason: z.enum(['permission', 'idle', 'other']),
    notification_type: z.string().nullable(),
    message: z.string(),
  }),
]);
export type HookReport = z.infer<typeof hookReportSchema>;
