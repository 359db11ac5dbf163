import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAlive, spawnDevServer, stopProcess, waitForServer } from '../../temporal/dev-server';
import { resolveTemporalCli } from '../../temporal/resolve-cli';
import type { TheLoopConfig } from '../config/schema';
import { writeFileAtomic } from '../session/atomic';
import { defaultHostId, hostQueueName } from '../worker/queues';
import { connectClient } from './connection';
import { CliError, EXIT } from './errors';
import {
  readServiceFile,
  resolveTarget,
  serviceFilePath,
  type ServiceFile,
  type TemporalTarget,
} from './target';

export interface ServiceContext {
  config: TheLoopConfig;
  configPath: string | null;
  stateDir: string;
  log: (line: string) => void;
}

const SERVER_START_TIMEOUT_MS = 90_000;
const WORKER_START_TIMEOUT_MS = 90_000;

export function servicePaths(stateDir: string) {
  return {
    dbFile: join(stateDir, 'temporal.db'),
    serverLog: join(stateDir, 'logs', 'temporal.log'),
    workerLog: join(stateDir, 'logs', 'worker.log'),
    serverPid: join(stateDir, 'temporal.pid'),
    workerPid: join(stateDir, 'worker.pid'),
    workerReady: join(stateDir, 'worker.ready.json'),
  };
}

function readPid(file: string): number | null {
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function livePid(file: string): number | null {
  const pid = readPid(file);
  return pid !== null && isAlive(pid) ? pid : null;
}

export interface StartResult {
  target: TemporalTarget;
  uiAddress: string | null;
  server: { pid: number; started: boolean } | null;
  worker: { pid: number; started: boolean };
}

/** The CLI entry point `bin/the-loop.js`, used to spawn the background worker. */
function cliEntry(): string {
  return resolve(__dirname, '..', '..', '..', 'bin', 'the-loop.js');
}

/** Brings up the embedded dev server (when no Temporal is configured) and a worker, in the background. */
export async function startService(ctx: ServiceContext): Promise<StartResult> {
  const paths = servicePaths(ctx.stateDir);
  mkdirSync(ctx.stateDir, { recursive: true });
  let target = resolveTarget(ctx.config, ctx.stateDir);
  let server: StartResult['server'] = null;
  let uiAddress: string | null = null;
  let cliPath = readServiceFile(ctx.stateDir)?.server?.cliPath ?? '';

  if (target.source === 'embedded') {
    const { ip, port, uiPort } = ctx.config.temporal.devServer;
    const address = `${ip}:${port}`;
    uiAddress = `http://${ip}:${uiPort}`;
    const running = livePid(paths.serverPid);
    if (running !== null) {
      await waitForServer(address, running, SERVER_START_TIMEOUT_MS);
      server = { pid: running, started: false };
    } else {
      const cli = await resolveTemporalCli({ onProgress: ctx.log });
      cliPath = cli.path;
      ctx.log(
        `starting the Temporal dev server (${cli.source}: ${cli.path}) on ${address}, Web UI ${uiAddress}`,
      );
      const handle = spawnDevServer({
        cliPath: cli.path,
        dbFile: paths.dbFile,
        logFile: paths.serverLog,
        ip,
        port,
        uiPort,
        detached: true,
        namespace: ctx.config.temporal.namespace ?? 'default',
      });
      writeFileAtomic(paths.serverPid, `${handle.pid}\n`);
      try {
        await waitForServer(address, handle.pid, SERVER_START_TIMEOUT_MS);
      } catch (error) {
        await stopProcess(handle.pid, 2000);
        rmSync(paths.serverPid, { force: true });
        throw new CliError(`${(error as Error).message} — see ${paths.serverLog}`, EXIT.unavailable);
      }
      server = { pid: handle.pid, started: true };
    }
    target = { ...target, address, connectionOptions: { address } };
  }

  const taskQueue = ctx.config.temporal.taskQueue;
  const hostQueue = hostQueueName(taskQueue, defaultHostId(ctx.config));
  let worker: StartResult['worker'];
  const runningWorker = livePid(paths.workerPid);
  if (runningWorker !== null) {
    worker = { pid: runningWorker, started: false };
  } else {
    worker = { pid: await spawnBackgroundWorker(ctx, target, paths), started: true };
  }

  const record: ServiceFile = {
    address: target.address,
    namespace: target.namespace,
    uiAddress,
    server: server ? { pid: server.pid, dbFile: paths.dbFile, logFile: paths.serverLog, cliPath } : null,
    worker: { pid: worker.pid, logFile: paths.workerLog, taskQueue, hostQueue },
    startedAt: new Date().toISOString(),
  };
  writeFileAtomic(serviceFilePath(ctx.stateDir), `${JSON.stringify(record, null, 2)}\n`);
  return { target, uiAddress, server, worker };
}

async function spawnBackgroundWorker(
  ctx: ServiceContext,
  target: TemporalTarget,
  paths: ReturnType<typeof servicePaths>,
): Promise<number> {
  rmSync(paths.workerReady, { force: true });
  mkdirSync(join(ctx.stateDir, 'logs'), { recursive: true });
  const log = openSync(paths.workerLog, 'a');
  const args = [cliEntry(), 'worker', '--ready-file', paths.workerReady];
  if (ctx.configPath) args.push('--config', ctx.configPath);
  const env: NodeJS.ProcessEnv = { ...process.env, THE_LOOP_STATE_DIR: ctx.stateDir };
  // The embedded server's address reaches the worker the same way it reaches the CLI: through service.json.
  if (target.source === 'embedded') delete env.TEMPORAL_ADDRESS;
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], env });
  closeSync(log);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new CliError('could not start the worker process');
  writeFileAtomic(paths.workerPid, `${pid}\n`);
  const deadline = Date.now() + WORKER_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (existsSync(paths.workerReady)) return pid;
    if (!isAlive(pid)) {
      rmSync(paths.workerPid, { force: true });
      throw new CliError(`the worker exited during start-up — see ${paths.workerLog}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new CliError(
    `the worker did not become ready within ${WORKER_START_TIMEOUT_MS / 1000} s — see ${paths.workerLog}`,
  );
}

export interface StopResult {
  worker: 'not-running' | 'sigterm' | 'sigkill';
  server: 'not-running' | 'sigterm' | 'sigkill';
}

/** Stops what `start` started: the worker first (its iterations get their grace period), then the server. */
export async function stopService(ctx: ServiceContext): Promise<StopResult> {
  const paths = servicePaths(ctx.stateDir);
  const workerPid = readPid(paths.workerPid);
  const serverPid = readPid(paths.serverPid);
  const worker = workerPid === null ? 'not-running' : await stopProcess(workerPid, 30_000);
  const server = serverPid === null ? 'not-running' : await stopProcess(serverPid, 15_000);
  for (const file of [paths.workerPid, paths.serverPid, paths.workerReady, serviceFilePath(ctx.stateDir)]) {
    rmSync(file, { force: true });
  }
  return { worker, server };
}

export interface ServiceStatus {
  target: TemporalTarget;
  reachable: boolean;
  uiAddress: string | null;
  server: { pid: number; running: boolean; dbFile: string; logFile: string } | null;
  worker: { pid: number; running: boolean; logFile: string; taskQueue: string; hostQueue: string } | null;
}

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const paths = servicePaths(ctx.stateDir);
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const record = readServiceFile(ctx.stateDir);
  const serverPid = readPid(paths.serverPid);
  const workerPid = readPid(paths.workerPid);
  let reachable = true;
  try {
    await (await connectClient(target, 3000)).close();
  } catch {
    reachable = false;
  }
  const taskQueue = ctx.config.temporal.taskQueue;
  return {
    target,
    reachable,
    uiAddress:
      target.source === 'embedded'
        ? (record?.uiAddress ??
          `http://${ctx.config.temporal.devServer.ip}:${ctx.config.temporal.devServer.uiPort}`)
        : null,
    server:
      serverPid === null
        ? null
        : { pid: serverPid, running: isAlive(serverPid), dbFile: paths.dbFile, logFile: paths.serverLog },
    worker:
      workerPid === null
        ? null
        : {
            pid: workerPid,
            running: isAlive(workerPid),
            logFile: paths.workerLog,
            taskQueue,
            hostQueue: hostQueueName(taskQueue, defaultHostId(ctx.config)),
          },
  };
}
