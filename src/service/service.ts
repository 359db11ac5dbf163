import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAlive, spawnDevServer, stopProcess, waitForServer } from './dev-server';
import { resolveTemporalCli } from './resolve-cli';
import { pollUntil } from '../process/poll-until';
import { spawnBackground } from '../process/spawn-background';
import type { TheLoopConfig } from '../config/schema';
import { writeFileAtomic } from '../session/atomic';
import { webhookSecret } from '../webhook/serve';
import { defaultHostId, hostQueueName } from '../worker/queues';
import { connectClient } from '../temporal/connection';
import { CliError, EXIT } from '../errors';
import {
  readServiceFile,
  resolveTarget,
  serviceFilePath,
  type ServiceFile,
  type TemporalTarget,
} from '../temporal/target';

export interface ServiceContext {
  config: TheLoopConfig;
  configPath: string | null;
  stateDir: string;
  log: (line: string) => void;
}

const SERVER_START_TIMEOUT_MS = 90_000;
const WORKER_START_TIMEOUT_MS = 90_000;
const WEBHOOK_START_TIMEOUT_MS = 60_000;

export function servicePaths(stateDir: string) {
  return {
    dbFile: join(stateDir, 'temporal.db'),
    serverLog: join(stateDir, 'logs', 'temporal.log'),
    workerLog: join(stateDir, 'logs', 'worker.log'),
    serverPid: join(stateDir, 'temporal.pid'),
    workerPid: join(stateDir, 'worker.pid'),
    workerReady: join(stateDir, 'worker.ready.json'),
    webhookLog: join(stateDir, 'logs', 'webhook.log'),
    webhookPid: join(stateDir, 'webhook.pid'),
    webhookReady: join(stateDir, 'webhook.ready.json'),
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
  /** The GitHub webhook receiver: run when a webhook secret is configured; null otherwise. */
  webhook: { pid: number; started: boolean; url: string | null } | null;
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

  let webhook: StartResult['webhook'] = null;
  const secret = webhookSecret(ctx);
  if (secret) {
    const runningWebhook = livePid(paths.webhookPid);
    webhook =
      runningWebhook !== null
        ? { pid: runningWebhook, started: false, url: readyUrl(paths.webhookReady) }
        : { ...(await spawnBackgroundWebhook(ctx, target, paths, secret)), started: true };
  }
  return { target, uiAddress, server, worker, webhook };
}

/** `node <the-loop> <args>` as a detached background process (worker, webhook receiver). */
function startDetached(args: string[], logFile: string, env: NodeJS.ProcessEnv, what: string): number {
  try {
    return spawnBackground(process.execPath, args, { logFile, env, detached: true });
  } catch (error) {
    throw new CliError(`could not start ${what}: ${(error as Error).message}`);
  }
}

function readyUrl(file: string): string | null {
  try {
    const ready = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown };
    return typeof ready.url === 'string' ? ready.url : null;
  } catch {
    return null;
  }
}

/**
 * `the-loop webhook` as a detached process, like the worker. The secret reaches it only through its
 * environment (THE_LOOP_WEBHOOK_SECRET), never its argv, where ps would show it.
 */
async function spawnBackgroundWebhook(
  ctx: ServiceContext,
  target: TemporalTarget,
  paths: ReturnType<typeof servicePaths>,
  secret: string,
): Promise<{ pid: number; url: string | null }> {
  rmSync(paths.webhookReady, { force: true });
  mkdirSync(join(ctx.stateDir, 'logs'), { recursive: true });
  const args = [cliEntry(), 'webhook', '--ready-file', paths.webhookReady];
  if (ctx.configPath) args.push('--config', ctx.configPath);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    THE_LOOP_STATE_DIR: ctx.stateDir,
    THE_LOOP_WEBHOOK_SECRET: secret,
  };
  if (target.source === 'embedded') delete env.TEMPORAL_ADDRESS;
  const pid = startDetached(args, paths.webhookLog, env, 'the webhook receiver process');
  writeFileAtomic(paths.webhookPid, `${pid}\n`);
  const ready = await pollUntil(
    () => {
      if (existsSync(paths.webhookReady)) return true;
      if (isAlive(pid)) return false;
      rmSync(paths.webhookPid, { force: true });
      throw new CliError(
        `the webhook receiver exited during start-up (the server and worker keep running) — see ${paths.webhookLog}`,
      );
    },
    { timeoutMs: WEBHOOK_START_TIMEOUT_MS, intervalMs: 200 },
  );
  if (ready) return { pid, url: readyUrl(paths.webhookReady) };
  await stopProcess(pid, 5000);
  rmSync(paths.webhookPid, { force: true });
  throw new CliError(
    `the webhook receiver did not listen within ${WEBHOOK_START_TIMEOUT_MS / 1000} s — see ${paths.webhookLog}`,
  );
}

async function spawnBackgroundWorker(
  ctx: ServiceContext,
  target: TemporalTarget,
  paths: ReturnType<typeof servicePaths>,
): Promise<number> {
  rmSync(paths.workerReady, { force: true });
  mkdirSync(join(ctx.stateDir, 'logs'), { recursive: true });
  const args = [cliEntry(), 'worker', '--ready-file', paths.workerReady];
  if (ctx.configPath) args.push('--config', ctx.configPath);
  const env: NodeJS.ProcessEnv = { ...process.env, THE_LOOP_STATE_DIR: ctx.stateDir };
  // The embedded server's address reaches the worker the same way it reaches the CLI: through service.json.
  if (target.source === 'embedded') delete env.TEMPORAL_ADDRESS;
  const pid = startDetached(args, paths.workerLog, env, 'the worker process');
  writeFileAtomic(paths.workerPid, `${pid}\n`);
  const ready = await pollUntil(
    () => {
      if (existsSync(paths.workerReady)) return true;
      if (isAlive(pid)) return false;
      rmSync(paths.workerPid, { force: true });
      throw new CliError(`the worker exited during start-up — see ${paths.workerLog}`);
    },
    { timeoutMs: WORKER_START_TIMEOUT_MS, intervalMs: 200 },
  );
  if (ready) return pid;
  throw new CliError(
    `the worker did not become ready within ${WORKER_START_TIMEOUT_MS / 1000} s — see ${paths.workerLog}`,
  );
}

export interface StopResult {
  webhook: 'not-running' | 'sigterm' | 'sigkill';
  worker: 'not-running' | 'sigterm' | 'sigkill';
  server: 'not-running' | 'sigterm' | 'sigkill';
}

/**
 * Stops what `start` started: the webhook receiver first (no new deliveries), then the worker (its iterations
 * get their grace period), then the server.
 */
export async function stopService(ctx: ServiceContext): Promise<StopResult> {
  const paths = servicePaths(ctx.stateDir);
  const webhookPid = readPid(paths.webhookPid);
  const webhook = webhookPid === null ? 'not-running' : await stopProcess(webhookPid, 10_000);
  for (const file of [paths.webhookPid, paths.webhookReady]) rmSync(file, { force: true });
  const workerPid = readPid(paths.workerPid);
  const serverPid = readPid(paths.serverPid);
  const worker = workerPid === null ? 'not-running' : await stopProcess(workerPid, 30_000);
  const server = serverPid === null ? 'not-running' : await stopProcess(serverPid, 15_000);
  for (const file of [paths.workerPid, paths.serverPid, paths.workerReady, serviceFilePath(ctx.stateDir)]) {
    rmSync(file, { force: true });
  }
  return { webhook, worker, server };
}

export interface ServiceStatus {
  target: TemporalTarget;
  reachable: boolean;
  uiAddress: string | null;
  server: { pid: number; running: boolean; dbFile: string; logFile: string } | null;
  worker: { pid: number; running: boolean; logFile: string; taskQueue: string; hostQueue: string } | null;
  /** `configured`: a webhook secret is set, so `the-loop start` runs the receiver. */
  webhook: { configured: boolean; pid: number | null; running: boolean; url: string | null; logFile: string };
}

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const paths = servicePaths(ctx.stateDir);
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const record = readServiceFile(ctx.stateDir);
  const serverPid = readPid(paths.serverPid);
  const workerPid = readPid(paths.workerPid);
  const webhookPid = readPid(paths.webhookPid);
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
    webhook: {
      configured: webhookSecret(ctx) !== null,
      pid: webhookPid,
      running: webhookPid !== null && isAlive(webhookPid),
      url: webhookPid === null ? null : readyUrl(paths.webhookReady),
      logFile: paths.webhookLog,
    },
  };
}
