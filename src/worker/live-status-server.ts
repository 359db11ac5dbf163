import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { Client } from '@temporalio/client';
import { errorLine } from '../errors';
import type { SessionStateFile } from '../session/schemas/state';
import { statusQuery } from '../workflows/goal-session/messages';
import {
  liveStatusRequestSchema,
  MAX_REQUEST_BYTES,
  type LiveStatusReply,
  type LiveStatusRequest,
} from './live-status-protocol';

/** As long as `loopy status` waits for a query through its own client. */
const QUERY_DEADLINE_MS = 2500;

export interface LiveStatusServer {
  close(): Promise<void>;
}

/** The answer to one request: the session's live state, or why there is none. */
export async function answerLiveStatus(
  request: LiveStatusRequest,
  target: { address: string; namespace: string },
  query: (sessionId: string) => Promise<SessionStateFile>,
): Promise<LiveStatusReply> {
  if (request.address !== target.address || request.namespace !== target.namespace) {
    return {
      error: 'other-temporal',
      message: `this worker talks to ${target.address} (${target.namespace})`,
    };
  }
  try {
    return { state: await query(request.sessionId) };
  } catch (error) {
    return { error: 'no-answer', message: errorLine(error) };
  }
}

function serve(socket: Socket, answer: (request: LiveStatusRequest) => Promise<LiveStatusReply>): void {
  let received = '';
  const reply = (message: LiveStatusReply) => socket.end(`${JSON.stringify(message)}\n`);
  socket.setEncoding('utf8');
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: string) => {
    received += chunk;
    const end = received.indexOf('\n');
    if (end < 0 && received.length <= MAX_REQUEST_BYTES) return;
    socket.removeAllListeners('data');
    let parsed;
    try {
      parsed = end < 0 ? null : liveStatusRequestSchema.safeParse(JSON.parse(received.slice(0, end)));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      reply({ error: 'bad-request', message: 'expected one JSON line: {sessionId, address, namespace}' });
      return;
    }
    void answer(parsed.data).then(reply);
  });
}

/** The status query through this worker's client, with the deadline `loopy status` gives its own. */
export function statusThrough(client: Client): (sessionId: string) => Promise<SessionStateFile> {
  return (sessionId) =>
    client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
      client.workflow.getHandle(sessionId).query(statusQuery),
    );
}

/**
 * Serves the live state of goal sessions on `socketPath` (0600, in the worker's 0700 socket directory), as `query`
 * gets it (statusThrough the worker's client). A socket left by a worker that died is replaced.
 */
export async function startLiveStatusServer(options: {
  socketPath: string;
  target: { address: string; namespace: string };
  query: (sessionId: string) => Promise<SessionStateFile>;
}): Promise<LiveStatusServer> {
  const { query, target, socketPath } = options;
  const server: Server = createServer((socket) =>
    serve(socket, (request) => answerLiveStatus(request, target, query)),
  );
  await rm(socketPath, { force: true });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(socketPath, () => listening());
  });
  await chmod(socketPath, 0o600);
  return {
    async close() {
      await new Promise<void>((closed) => server.close(() => closed()));
      await rm(socketPath, { force: true });
    },
  };
}
