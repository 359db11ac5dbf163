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
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
