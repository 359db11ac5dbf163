import { connect as tcpConnect } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { CliError, errorLine, EXIT } from '../errors';
import type { TemporalTarget } from './target';

export interface ConnectedClient {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * A refused TCP connection is certain (nothing listens), so it is retried only for this window: with the service
 * down a command fails in about a second. A live server never refuses, however loaded the machine is.
 */
const REFUSED_WINDOW_MS = 800;
const PROBE_RETRY_MS = 200;
/** A host that neither accepts nor refuses (a dropped SYN, an unroutable address) is given this long. */
const SILENT_DEADLINE_MS = 10_000;
/**
 * Once the port accepts connections, the server is there: it gets this long to answer, because on a loaded
 * machine (a hundred CLI calls at once on two cores) a few seconds is not enough and a false "cannot reach" is
 * worse than a slow answer.
 */
export const ANSWER_DEADLINE_MS = 30_000;

type PortProbe = { result: 'open' } | { result: 'refused' | 'silent'; reason: string };

/** host and port of `host:port` or `[v6]:port`; null for an address this cannot read (then the probe is skipped). */
function hostAndPort(address: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:/]+)):(\d+)$/.exec(address.trim());
  if (!match) return null;
  const port = Number(match[3]);
  return port > 0 && port < 65536 ? { host: (match[1] ?? match[2])!, port } : null;
}

function probePort(host: string, port: number, timeoutMs: number): Promise<PortProbe> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ result: 'silent', reason: `no answer from ${host}:${port}` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ result: 'open' });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ result: 'refused', reason: error.message });
    });
  });
}

/**
 * Resolves once something accepts TCP connections at the address; throws the exit-4 error once it has refused
 * for REFUSED_WINDOW_MS, or not answered for SILENT_DEADLINE_MS.
 */
async function awaitListener(target: TemporalTarget): Promise<void> {
  const endpoint = hostAndPort(target.address);
  if (!endpoint) return;
  const started = Date.now();
  for (;;) {
    const probe = await probePort(endpoint.host, endpoint.port, SILENT_DEADLINE_MS - (Date.now() - started));
    if (probe.result === 'open') return;
    const elapsed = Date.now() - started;
    if ((probe.result === 'refused' && elapsed >= REFUSED_WINDOW_MS) || elapsed >= SILENT_DEADLINE_MS) {
      throw unreachable(target, new Error(probe.reason));
    }
    await new Promise((r) => setTimeout(r, PROBE_RETRY_MS));
  }
}

async function attempt(target: TemporalTarget, answerDeadlineMs: number): Promise<Connection> {
  const { Connection } = await temporalClient();
  const connection = Connection.lazy({
    ...target.connectionOptions,
    address: target.address,
    connectTimeout: answerDeadlineMs,
  } as Parameters<typeof Connection.lazy>[0]);
  try {
    await connection.ensureConnected();
    return connection;
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The client (and its protos) is loaded once something listens: with the service down, a command fails before
 * paying for it.
 */
const temporalClient = () => import('@temporalio/client');

/**
 * Connects, or fails with exit 4 only once the server has really been unreachable: nothing listening for about a
 * second, or a listener that did not answer within the deadline twice.
 */
export async function connectClient(
  target: TemporalTarget,
  answerDeadlineMs = ANSWER_DEADLINE_MS,
): Promise<ConnectedClient> {
  await awaitListener(target);
  let connection: Connection;
  try {
    connection = await attempt(target, answerDeadlineMs);
  } catch {
    // One retry, after checking that the server did not just go away.
    await awaitListener(target);
    try {
      connection = await attempt(target, answerDeadlineMs);
    } catch (error) {
      throw unreachable(target, error);
    }
  }
  const { Client } = await temporalClient();
  const client = new Client({ connection, namespace: target.namespace });
  return { client, connection, close: () => connection.close() };
}

function unreachable(target: TemporalTarget, error: unknown): CliError {
  const reason = errorLine(error);
  const fix =
    target.source === 'embedded'
      ? 'run `the-loop start` to start the embedded Temporal service'
      : `check TEMPORAL_ADDRESS / temporal.address (${target.source})`;
  return new CliError(`cannot reach Temporal at ${target.address} (${reason}) — ${fix}`, EXIT.unavailable);
}

/** Whether something accepts TCP connections at `address` right now (one probe). */
export async function acceptsConnections(address: string, timeoutMs = 2000): Promise<boolean> {
  const endpoint = hostAndPort(address);
  return endpoint !== null && (await probePort(endpoint.host, endpoint.port, timeoutMs)).result === 'open';
}
