import { connect } from 'node:net';
import type { SessionStateFile } from '../../../session/schemas/state';
import { liveStatusReplySchema, type LiveStatusRequest } from '../../../worker/live-status-protocol';

/** The worker runs the query with its own 2.5 s deadline: this is for a worker that does not answer at all. */
const ANSWER_WITHIN_MS = 4000;

/**
 * A running session's live state from the worker of this state directory (worker/live-status-server.ts): null when
 * no worker listens there, it talks to another Temporal, or it could not get an answer — the caller then asks
 * Temporal itself.
 */
export function askLocalWorker(
  socketPath: string,
  request: LiveStatusRequest,
): Promise<SessionStateFile | null> {
  return new Promise((settle) => {
    let received = '';
    const socket = connect(socketPath);
    const done = (state: SessionStateFile | null) => {
      clearTimeout(timer);
      socket.destroy();
      settle(state);
    };
    const timer = setTimeout(() => done(null), ANSWER_WITHIN_MS);
    socket.setEncoding('utf8');
    socket.on('error', () => done(null));
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => {
      try {
        const reply = liveStatusReplySchema.parse(JSON.parse(received));
        done('state' in reply ? reply.state : null);
      } catch {
        done(null);
      }
    });
  });
}
