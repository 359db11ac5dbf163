/**
 * Records a finished workflow's event history as JSON (the format the Temporal CLI and Web UI export), for the
 * determinism guard: every file under test/histories/ is replayed against the current workflow code in CI.
 *
 *   npm run build && node dist/scripts/record-history.js <workflowId> [--address HOST:PORT] [--namespace NS]
 *     [--run-id ID] [--out FILE]
 *
 * Without --address, the configured Temporal target is used (the-loop.yaml, TEMPORAL_ADDRESS, or the embedded
 * dev server of the state directory). The default output is test/histories/<workflowId>.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { resolveTarget } from '../src/temporal/target';
import { loadConfig } from '../src/config/load';
import { stateDir } from '../src/config/state-dir';

// scripts/ when run from source (tests), dist/scripts/ when compiled.
const REPO = existsSync(resolve(__dirname, '..', 'package.json'))
  ? resolve(__dirname, '..')
  : resolve(__dirname, '..', '..');

/** Fetches the history of a closed workflow execution and writes it as JSON; returns the file and event count. */
export async function recordHistory(
  client: Client,
  workflowId: string,
  out: string,
  runId?: string,
): Promise<{ file: string; events: number }> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const description = await handle.describe();
  if (description.status.name === 'RUNNING') {
    throw new Error(`workflow ${workflowId} is still running: record a finished one`);
  }
  const history = await handle.fetchHistory();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${historyToJSON(history)}\n`);
  return { file: out, events: history.events?.length ?? 0 };
}

export function defaultHistoryFile(workflowId: string, repo = REPO): string {
  return join(repo, 'test', 'histories', `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  args.splice(i, 2);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  let address: string | undefined;
  let namespace: string | undefined;
  let runId: string | undefined;
  let out: string | undefined;
  try {
    address = option(args, 'address');
    namespace = option(args, 'namespace');
    runId = option(args, 'run-id');
    out = option(args, 'out');
  } catch (error) {
    process.stderr.write(`record-history: ${(error as Error).message}\n`);
    return 2;
  }
  const workflowId = args[0];
  if (!workflowId || args.length !== 1 || workflowId.startsWith('-')) {
    process.stderr.write(
      'usage: record-history <workflowId> [--address HOST:PORT] [--namespace NS] [--run-id ID] [--out FILE]\n',
    );
    return 2;
  }
  let connectionOptions: Parameters<typeof Connection.connect>[0];
  if (address) {
    connectionOptions = { address };
  } else {
    const target = resolveTarget(loadConfig().config, stateDir());
    connectionOptions = { ...target.connectionOptions, address: target.address } as Parameters<
      typeof Connection.connect
    >[0];
    namespace ??= target.namespace;
  }
  const connection = await Connection.connect(connectionOptions);
  try {
    const client = new Client({ connection, namespace: namespace ?? 'default' });
    const recorded = await recordHistory(
      client,
      workflowId,
      resolve(out ?? defaultHistoryFile(workflowId)),
      runId,
    );
    process.stdout.write(`${recorded.file} (${recorded.events} events)\n`);
    return 0;
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`record-history: ${(error as Error).message.split('\n')[0]}\n`);
      process.exit(1);
    },
  );
}
