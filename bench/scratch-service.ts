/**
 * A throw-away Temporal for a benchmark: a dev server on a SQLite file in `dir`, and the-loop's worker in its own
 * process (bin/the-loop.js worker, as `the-loop start` runs it) with a config naming that server and `taskQueue`.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stopProcess } from '../src/service/dev-server';
import { resolveTemporalCli } from '../src/service/resolve-cli';
import { startScratchDevServer } from '../test/support/dev-server';

export interface ScratchService {
  address: string;
  /** The Temporal CLI's version, which the dev server is. */
  version: string;
  configFile: string;
  /** The worker's state directory (its live-status socket is there). */
  stateDir: string;
  pids: { worker: number; server: number };
  close(): Promise<void>;
}

export async function startScratchService(
  dir: string,
  taskQueue: string,
  serverArgs: string[] = [],
): Promise<ScratchService> {
  const cli = await resolveTemporalCli({ onProgress: (l) => process.stderr.write(`${l}\n`) });
  const server = await startScratchDevServer({ cliPath: cli.path, dir, extraArgs: serverArgs });
  const configFile = join(dir, 'the-loop.yaml');
  writeFileSync(
    configFile,
    `temporal:\n  address: ${server.address}\n  taskQueue: ${taskQueue}\nworker:\n  hostId: bench\n`,
  );
  const readyFile = join(dir, 'worker.ready');
  const stateDir = join(dir, 'state');
  const worker = spawn(
    process.execPath,
    [resolve(__dirname, '..', '..', 'bin', 'the-loop.js'), 'worker', '--ready-file', readyFile],
    {
      env: {
        ...process.env,
        THE_LOOP_CONFIG: configFile,
        THE_LOOP_STATE_DIR: stateDir,
        TEMPORAL_ADDRESS: '',
      },
      stdio: 'ignore',
    },
  );
  const close = async () => {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    await stopProcess(server.pid, 10_000);
  };
  try {
    while (!existsSync(readyFile)) await new Promise((r) => setTimeout(r, 100));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    address: server.address,
    version: cli.version,
    configFile,
    stateDir,
    pids: { worker: worker.pid ?? 0, server: server.pid },
    close,
  };
}
