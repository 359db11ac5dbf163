import { z } from 'zod';
import { sessionStateFileSchema } from '../session/schemas/state';

/**
 * The worker's live-status socket: one request line, one reply line, then the worker closes. `loopy status` asks the
 * worker of its state directory for a running session's state this way, so that it need not load the Temporal
 * client (most of what the command would otherwise cost): the worker, already connected, runs the query for it.
 */
export const liveStatusRequestSchema = z.object({
  sessionId: z.string().min(1).max(200),
  /** The Temporal the asker would have queried: a worker connected to another one does not answer for it. */
  address: z.string(),
  namespace: z.string(),
});
export type LiveStatusRequest = z.infer<typeof liveStatusRequestSchema>;

export const liveStatusReplySchema = z.union([
  z.object({ state: sessionStateFileSchema }),
  z.object({ error: z.enum(['bad-request', 'other-temporal', 'no-answer']), message: z.string() }),
]);
export type LiveStatusReply = z.infer<typeof liveStatusReplySchema>;

/** A request is a session id and an address: anything longer is not one. */
export const MAX_REQUEST_BYTES = 4096;
