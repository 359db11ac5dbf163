import { Client, Connection } from '@temporalio/client';
import { CliError, errorLine, EXIT } from '../errors';
import type { TemporalTarget } from './target';

export interface ConnectedClient {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/** Connects with a bounded wait, so that an address that points nowhere fails in seconds, not minutes. */
export async function connectClient(target: TemporalTarget, timeoutMs = 5000): Promise<ConnectedClient> {
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...target.connectionOptions,
      address: target.address,
      connectTimeout: timeoutMs,
    } as Parameters<typeof Connection.connect>[0]);
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
  } catch (error) {
    throw unreachable(target, error);
  }
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
