import { createServer } from 'node:net';
import { join } from 'node:path';

import {
  spawnDevServer,
  stopProcess,
  waitForServer,
  type DevServerHandle,
} from '../../src/service/dev-server';

/**
 * A dev server of its own for a test run or a benchmark: free ports, temporal.db and temporal.log in `dir` (the
 * database in `dbDir` when given), a child of this process, ready when this resolves (stopped again if it never
 * answers).
 */
export async function startScratchDevServer(options: {
  cliPath: string;
  dir: string;
  dbDir?: string;
  sqlitePragmas?: readonly string[];
  extraArgs?: readonly string[];
}): Promise<DevServerHandle> {
  const [port, uiPort] = [await freePort(), await freePort()];
  const server = spawnDevServer({
    cliPath: options.cliPath,
    dbFile: join(options.dbDir ?? options.dir, 'temporal.db'),
    logFile: join(options.dir, 'temporal.log'),
    port,
    uiPort,
    detached: false,
    ...(options.sqlitePragmas ? { sqlitePragmas: options.sqlitePragmas } : {}),
    ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
  });
  try {
    await waitForServer(server.address, server.pid, 120_000);
  } catch (error) {
    await stopProcess(server.pid, 5000);
    throw error;
  }
  return server;
}

/** A port that was free a moment ago on 127.0.0.1 (tests and benchmarks run their own servers on these). */
/**
 * A free port outside the kernel's ephemeral range (32768–60999 here): a port taken from that range and released can
 * be handed to any process's outgoing connection before the server under test binds it, which fails its start-up
 * ("address already in use") on a busy machine. Below 32768 only listeners take ports, and each is checked free.
 * The cluster's membership ports need this range too: its membership table stores them as a PostgreSQL smallint.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
