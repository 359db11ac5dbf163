import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAlive, stopProcess, waitForServer } from './dev-server';
import {
  findServiceProcesses,
  liveServiceProcess,
  pidFileOf,
  registeredProcess,
  servicePaths,
  type ServiceProcess,
  type ServiceRole,
} from './service-processes';
import { withServiceLock } from './service-lock';
import { readPidFile } from './process-facts';
import { spawnEmbeddedServer } from './embedded-server';
import { LoadScaledDeadline } from '../process/load-scaled-deadline';
import { pollUntil } from '../process/poll-until';
import { spawnBackground } from '../process/spawn-background';
import type { TheLoopConfig } from '../config/schema';
import { writeFileAtomic } from '../session/atomic';
import { webhookSecret } from '../webhook/secret';
import { defaultHostId } from '../worker/queues';
import { hostQueueName } from '../workflows/host-queue';
import { connectClient } from '../temporal/connection';
import { CliError, EXIT } from '../errors';
import type { Logger } from '../log/logger';
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
  logger: Logger;
}

const SERVER_START_TIMEOUT_MS = 90_000;
// Start-ups on an idle machine; a busy one stretches them (LoadScaledDeadline).
const WORKER_START_UP_ON_AN_IDLE_MACHINE_MS = 90_000;
const WEBHOOK_START_UP_ON_AN_IDLE_MACHINE_MS = 60_000;

export interface StartResult {
  target: TemporalTarget;
  uiAddress: string | null;
  server: { pid: number; started: boolean } | null;
  /** `command`: how the worker runs — `worker` (started by `start` or by hand) or `dev`. */
  worker: { pid: number; started: boolean; command: string };
  /** The GitHub webhook receiver: run when a webhook secret is configured; null otherwise. */
  webhook: { pid: number; started: boolean; url: string | null } | null;
}

/** The CLI entry point `bin/the-loop.js`, used to spawn the background worker. */
function cliEntry(): string {
  return resolve(__dirname, '..', '..', '..', 'bin', 'the-loop.js');
}

/**
 * The running `role` of this state directory, its pid file rewritten when it was found without one (a server a
 * crashed start left behind), so that every later look finds it the cheap way.
 */
async function adopt(stateDir: string, role: ServiceRole): Promise<ServiceProcess | null> {
  const running = await liveServiceProcess(stateDir, role);
  if (running && (await readPidFile(pidFileOf(stateDir, role))) !== running.pid) {
    writeFileAtomic(pidFileOf(stateDir, role), `${running.pid}\n`);
  }
  return running;
}

/**
 * Brings up the embedded dev server (when no Temporal is configured) and a worker, in the background — unless this
 * state directory's service already runs, whoever started it (`start`, `loopy run`, `dev`, a foreground `worker`).
 * Holds the state directory's lock throughout, so a concurrent call waits and then finds what this one started.
 */
export function startService(ctx: ServiceContext): Promise<StartResult> {
  return withServiceLock(ctx.stateDir, ctx.logger, () => startServiceLocked(ctx));
}

async function startServiceLocked(ctx: ServiceContext): Promise<StartResult> {
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
    const running = await adopt(ctx.stateDir, 'server');
    if (running !== null) {
      await waitForServer(address, running.pid, SERVER_START_TIMEOUT_MS);
      server = { pid: running.pid, started: false };
    } else {
      const spawned = await spawnEmbeddedServer(ctx, { detached: true });
      const handle = spawned.handle;
      cliPath = spawned.cliPath;
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
  const runningWorker = await adopt(ctx.stateDir, 'worker');
  const worker: StartResult['worker'] =
    runningWorker !== null
      ? { pid: runningWorker.pid, started: false, command: runningWorker.command }
      : { pid: await spawnBackgroundWorker(ctx, target, paths), started: true, command: 'worker' };

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
    const runningWebhook = await adopt(ctx.stateDir, 'webhook');
    webhook =
      runningWebhook !== null
        ? { pid: runningWebhook.pid, started: false, url: readyUrl(paths.webhookReady) }
        : { ...(await spawnBackgroundWebhook(ctx, target, paths, secret)), started: true };
  }
  return { target, uiAddress, server, worker, webhook };
}

/**
 * `node <the-loop> <args>` as a detached background process (worker, webhook receiver). Its log file is read by
 * machines: it logs JSON, at this process's level.
 */
function startDetached(
  ctx: ServiceContext,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv,
  what: string,
): number {
  const logArgs = ['--log-format', 'json', '--log-level', ctx.logger.level];
  try {
    return spawnBackground(process.execPath, [...args, ...logArgs], { logFile, env, detached: true });
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
  const pid = startDetached(ctx, args, paths.webhookLog, env, 'the webhook receiver process');
  writeFileAtomic(paths.webhookPid, `${pid}\n`);
  const deadline = new LoadScaledDeadline(WEBHOOK_START_UP_ON_AN_IDLE_MACHINE_MS);
  const ready = await pollUntil(
    () => {
      if (existsSync(paths.webhookReady)) return true;
      if (isAlive(pid)) return false;
      rmSync(paths.webhookPid, { force: true });
      throw new CliError(
        `the webhook receiver exited during start-up (the server and worker keep running) — see ${paths.webhookLog}`,
      );
    },
    { timeoutMs: deadline, intervalMs: 200 },
  );
  if (ready) return { pid, url: readyUrl(paths.webhookReady) };
  await stopProcess(pid, 5000);
  rmSync(paths.webhookPid, { force: true });
  throw new CliError(
    `the webhook receiver did not write ${paths.webhookReady} (it does once it listens) within ${deadline.describe()} — see ${paths.webhookLog}`,
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
  const pid = startDetached(ctx, args, paths.workerLog, env, 'the worker process');
  writeFileAtomic(paths.workerPid, `${pid}\n`);
  const deadline = new LoadScaledDeadline(WORKER_START_UP_ON_AN_IDLE_MACHINE_MS);
  const ready = await pollUntil(
    () => {
      if (existsSync(paths.workerReady)) return true;
      if (isAlive(pid)) return false;
      rmSync(paths.workerPid, { force: true });
      throw new CliError(`the worker exited during start-up — see ${paths.workerLog}`);
    },
    { timeoutMs: deadline, intervalMs: 200 },
  );
  if (ready) return pid;
  throw new CliError(
    `the worker did not write ${paths.workerReady} (it does once it polls its task queues) within ${deadline.describe()} — see ${paths.workerLog}`,
  );
}

export interface StopResult {
  webhook: StopOutcome;
  worker: StopOutcome;
  server: StopOutcome;
}

type StopOutcome = 'not-running' | 'sigterm' | 'sigkill';

/** Stops every process that is `role` for this state directory: the pid file's, and any a scan finds. */
async function stopRole(stateDir: string, role: ServiceRole, graceMs: number): Promise<StopOutcome> {
  const pids = new Set<number>();
  const registered = await registeredProcess(stateDir, role);
  if (registered) pids.add(registered.pid);
  for (const found of await findServiceProcesses(stateDir, role)) pids.add(found.pid);
  const outcomes = await Promise.all([...pids].map((pid) => stopProcess(pid, graceMs)));
  if (outcomes.includes('sigkill')) return 'sigkill';
  return outcomes.includes('sigterm') ? 'sigterm' : 'not-running';
}

/**
 * Stops this state directory's service, whoever started it — found by pid file and by scanning for processes of
 * this state directory (the server by its database), so a lost or stale pid file leaves nothing running: the
 * webhook receiver first (no new deliveries), then the worker (its iterations get their grace period), then the
 * server.
 */
export function stopService(ctx: ServiceContext): Promise<StopResult> {
  return withServiceLock(ctx.stateDir, ctx.logger, async () => {
    const paths = servicePaths(ctx.stateDir);
    const webhook = await stopRole(ctx.stateDir, 'webhook', 10_000);
    for (const file of [paths.webhookPid, paths.webhookReady]) rmSync(file, { force: true });
    const worker = await stopRole(ctx.stateDir, 'worker', 30_000);
    const server = await stopRole(ctx.stateDir, 'server', 15_000);
    for (const file of [paths.workerPid, paths.serverPid, paths.workerReady, serviceFilePath(ctx.stateDir)]) {
      rmSync(file, { force: true });
    }
    return { webhook, worker, server };
  });
}

/** A pid file's process: `running` only when it is live, no zombie, and really this state directory's `role`. */
interface RoleStatus {
  pid: number;
  running: boolean;
  /** How it runs (`server`, `worker`, `dev`, `webhook`); null when it does not run. */
  command: string | null;
}

async function roleStatus(stateDir: string, role: ServiceRole): Promise<RoleStatus | null> {
  const running = await liveServiceProcess(stateDir, role);
  if (running) return { pid: running.pid, running: true, command: running.command };
  const pid = await readPidFile(pidFileOf(stateDir, role));
  return pid === null ? null : { pid, running: false, command: null };
}

export interface ServiceStatus {
  target: TemporalTarget;
  /** The server answered a connection with the usual deadline. */
  reachable: boolean;
  uiAddress: string | null;
  server: (RoleStatus & { dbFile: string; logFile: string }) | null;
  worker: (RoleStatus & { logFile: string; taskQueue: string; hostQueue: string }) | null;
  /** `configured`: a webhook secret is set, so `the-loop start` runs the receiver. */
  webhook: { configured: boolean; pid: number | null; running: boolean; url: string | null; logFile: string };
}

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const paths = servicePaths(ctx.stateDir);
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const record = readServiceFile(ctx.stateDir);
  const [server, worker, webhook] = await Promise.all([
    roleStatus(ctx.stateDir, 'server'),
    roleStatus(ctx.stateDir, 'worker'),
    roleStatus(ctx.stateDir, 'webhook'),
  ]);
  let reachable = true;
  try {
    await (await connectClient(target)).close();
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
    server: server && { ...server, dbFile: paths.dbFile, logFile: paths.serverLog },
    worker: worker && {
      ...worker,
      logFile: paths.workerLog,
      taskQueue,
      hostQueue: hostQueueName(taskQueue, defaultHostId(ctx.config)),
    },
    webhook: {
      configured: webhookSecret(ctx) !== null,
      pid: webhook?.pid ?? null,
      running: webhook?.running ?? false,
      url: webhook?.running ? readyUrl(paths.webhookReady) : null,
      logFile: paths.webhookLog,
    },
  };
}
