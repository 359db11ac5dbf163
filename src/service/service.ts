import { mkdirSync, rmSync } from 'node:fs';
import { stopProcess, waitForServer } from './dev-server';
import {
  adoptServiceProcess,
  findServiceProcesses,
  liveServiceProcess,
  pidFileOf,
  registeredProcess,
  servicePaths,
  type ServiceRole,
} from './service-processes';
import { withServiceLock } from './service-lock';
import { readPidFile, runningProcess } from './process-facts';
import { replaceUnresponsive, type ReplacedWorker } from './replace-unresponsive';
import { workerSilence, type Silence } from './worker-liveness';
import { spawnEmbeddedServer } from './embedded-server';
import { readyUrl, startDetachedPart, startReadyPart, type ReadyPart } from './detached-part';
import { readSupervisorFile, type SupervisorFile } from './supervisor-file';
import type { TheLoopConfig } from '../config/schema';
import { writeFileAtomic } from '../session/atomic';
import { webhookSecret } from '../webhook/secret';
import { boardPort } from '../board/port';
import { boardToken } from '../board/token';
import { defaultHostId } from '../temporal/queues';
import { hostQueueName } from '../workflows/goal-session/host-queue';
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
const BOARD_START_UP_ON_AN_IDLE_MACHINE_MS = 30_000;

/** A part with an address, the receiver or the board: its pid, and the URL its ready file names. */
interface ServedPart {
  pid: number;
  started: boolean;
  url: string | null;
}

type ServedRole = 'webhook' | 'board';

export interface StartResult {
  target: TemporalTarget;
  uiAddress: string | null;
  server: { pid: number; started: boolean } | null;
  /**
   * `command`: how the worker runs — `worker` (started by `start` or by hand) or `dev`. `replaced`: the unresponsive
   * worker this start killed before it started this one.
   */
  worker: { pid: number; started: boolean; command: string; replaced: ReplacedWorker | null };
  /** The GitHub webhook receiver: run when a webhook secret is configured; null otherwise. */
  webhook: ServedPart | null;
  /** The board: run unless board.port is 0; `problem` when it could not start (the rest runs on without it). */
  board: ServedPart | { problem: string } | null;
  /** What restarts a part that exits (supervisor.ts); null beside `dev`, which runs them in a terminal. */
  supervisor: { pid: number; started: boolean } | null;
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
    const running = await adoptServiceProcess(ctx.stateDir, 'server');
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
  const adopted = await adoptServiceProcess(ctx.stateDir, 'worker');
  const replaced = adopted && (await replaceUnresponsive(ctx, adopted));
  const runningWorker = replaced ? null : adopted;
  const worker: StartResult['worker'] =
    runningWorker !== null
      ? { pid: runningWorker.pid, started: false, command: runningWorker.command, replaced: null }
      : {
          pid: await startReadyPart(ctx, target, 'worker', {
            what: 'the worker process',
            ready: {
              startUpOnAnIdleMachineMs: WORKER_START_UP_ON_AN_IDLE_MACHINE_MS,
              exited: 'the worker exited during start-up',
              notReady: `the worker did not write ${paths.workerReady} (it does once it polls its task queues)`,
              // a worker late to poll may still come up: it is left running
              stopWhenNotReady: false,
            },
          }),
          started: true,
          command: 'worker',
          replaced,
        };

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
    // the secret reaches it only through its environment, never its argv, where ps would show it
    webhook =
      (await runningServedPart(ctx.stateDir, 'webhook')) ??
      (await startServedPart(ctx, target, 'webhook', {
        what: 'the webhook receiver process',
        env: { THE_LOOP_WEBHOOK_SECRET: secret },
        ready: {
          startUpOnAnIdleMachineMs: WEBHOOK_START_UP_ON_AN_IDLE_MACHINE_MS,
          exited: 'the webhook receiver exited during start-up (the server and worker keep running)',
          notReady: `the webhook receiver did not write ${paths.webhookReady} (it does once it listens)`,
          stopWhenNotReady: true,
        },
      }));
  }
  const board = await startBoard(ctx, target);
  const supervisor = worker.command === 'dev' ? null : await ensureSupervisor(ctx, target, paths);
  return { target, uiAddress, server, worker, webhook, board, supervisor };
}

/** `the-loop supervise`, unless it runs (inside the supervisor itself, a restart finds it here). */
async function ensureSupervisor(
  ctx: ServiceContext,
  target: TemporalTarget,
  paths: ReturnType<typeof servicePaths>,
): Promise<StartResult['supervisor']> {
  const running = await adoptServiceProcess(ctx.stateDir, 'supervisor');
  if (running) return { pid: running.pid, started: false };
  const pid = await startDetachedPart(ctx, target, {
    command: 'supervise',
    what: 'the supervisor',
    pidFile: paths.supervisorPid,
    logFile: paths.supervisorLog,
  });
  return { pid, started: true };
}

/**
 * The board, unless board.port is 0 or it already runs; a board that cannot start is a warning, not a failure. It
 * runs in this directory, whose goal sessions it shows beside the work items.
 */
async function startBoard(ctx: ServiceContext, target: TemporalTarget): Promise<StartResult['board']> {
  if (boardPort(ctx.config) === 0) return null;
  const running = await runningServedPart(ctx.stateDir, 'board');
  if (running !== null) return running;
  try {
    // the token reaches it only through its environment, like the receiver's secret
    const token = boardToken(ctx.config);
    return await startServedPart(ctx, target, 'board', {
      what: 'the board',
      env: token ? { THE_LOOP_BOARD_TOKEN: token } : {},
      ready: {
        startUpOnAnIdleMachineMs: BOARD_START_UP_ON_AN_IDLE_MACHINE_MS,
        exited: 'the board exited during start-up',
        notReady: 'the board did not start',
        stopWhenNotReady: true,
      },
    });
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** The running receiver or board, adopted; null when none runs. */
async function runningServedPart(stateDir: string, role: ServedRole): Promise<ServedPart | null> {
  const running = await adoptServiceProcess(stateDir, role);
  if (running === null) return null;
  return { pid: running.pid, started: false, url: readyUrl(servicePaths(stateDir)[`${role}Ready`]) };
}

/** `the-loop webhook` or `the-loop board` started detached, once it is ready. */
async function startServedPart(
  ctx: ServiceContext,
  target: TemporalTarget,
  role: ServedRole,
  part: ReadyPart,
): Promise<ServedPart> {
  const pid = await startReadyPart(ctx, target, role, part);
  return { pid, started: true, url: readyUrl(servicePaths(ctx.stateDir)[`${role}Ready`]) };
}

export interface StopResult {
  supervisor: StopOutcome;
  webhook: StopOutcome;
  board: StopOutcome;
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
 * supervisor first (so nothing comes back), then the webhook receiver (no new deliveries), then the worker (its
 * iterations get their grace period), then the server.
 */
export function stopService(ctx: ServiceContext): Promise<StopResult> {
  return withServiceLock(ctx.stateDir, ctx.logger, async () => {
    const paths = servicePaths(ctx.stateDir);
    // first, so that nothing stopped below is restarted
    const supervisor = await stopRole(ctx.stateDir, 'supervisor', 5_000);
    for (const file of [paths.supervisorPid, paths.supervisorFile]) rmSync(file, { force: true });
    const webhook = await stopRole(ctx.stateDir, 'webhook', 10_000);
    for (const file of [paths.webhookPid, paths.webhookReady]) rmSync(file, { force: true });
    const board = await stopRole(ctx.stateDir, 'board', 5_000);
    for (const file of [paths.boardPid, paths.boardReady]) rmSync(file, { force: true });
    const worker = await stopRole(ctx.stateDir, 'worker', 30_000);
    const server = await stopRole(ctx.stateDir, 'server', 15_000);
    const files = [paths.workerPid, paths.workerHeartbeat, paths.serverPid, paths.workerReady];
    for (const file of [...files, serviceFilePath(ctx.stateDir)]) {
      rmSync(file, { force: true });
    }
    return { supervisor, webhook, board, worker, server };
  });
}

/**
 * A pid file's process: `running` only when it is live, no zombie, and really this state directory's `role` (the
 * worker: and it answers, see workerStatus).
 */
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

/**
 * The worker's status: `running` only while it answers (its heartbeat, see worker-liveness.ts); a live process that
 * does not is `unresponsive`, since when it last answered.
 */
async function workerStatus(
  stateDir: string,
): Promise<(RoleStatus & { unresponsive: Silence | null }) | null> {
  const role = await roleStatus(stateDir, 'worker');
  if (role === null) return null;
  const facts = role.running ? runningProcess(role.pid) : null;
  const silence = facts && (await workerSilence(stateDir, facts));
  return silence ? { ...role, running: false, unresponsive: silence } : { ...role, unresponsive: null };
}

export interface ServiceStatus {
  target: TemporalTarget;
  /** The server answered a connection with the usual deadline. */
  reachable: boolean;
  uiAddress: string | null;
  server: (RoleStatus & { dbFile: string; logFile: string }) | null;
  worker:
    | (RoleStatus & { unresponsive: Silence | null; logFile: string; taskQueue: string; hostQueue: string })
    | null;
  /** `configured`: a webhook secret is set, so `the-loop start` runs the receiver. */
  webhook: { configured: boolean; pid: number | null; running: boolean; url: string | null; logFile: string };
  /** `configured`: board.port is not 0, so `the-loop start` runs the board. */
  board: { configured: boolean; pid: number | null; running: boolean; url: string | null; logFile: string };
  /** The supervisor, and what it saw of each part: exits, restarts, a restart waiting for its backoff. */
  supervisor: (RoleStatus & { logFile: string; parts: SupervisorFile['parts'] }) | null;
}

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const paths = servicePaths(ctx.stateDir);
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const record = readServiceFile(ctx.stateDir);
  const [server, worker, webhook, supervisor, board, supervised] = await Promise.all([
    roleStatus(ctx.stateDir, 'server'),
    workerStatus(ctx.stateDir),
    roleStatus(ctx.stateDir, 'webhook'),
    roleStatus(ctx.stateDir, 'supervisor'),
    roleStatus(ctx.stateDir, 'board'),
    readSupervisorFile(ctx.stateDir),
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
    supervisor: supervisor && {
      ...supervisor,
      logFile: paths.supervisorLog,
      // a record left by a supervisor that no longer runs says nothing of now
      parts: supervisor.running && supervised?.pid === supervisor.pid ? supervised.parts : {},
    },
    board: {
      configured: boardPort(ctx.config) !== 0,
      pid: board?.pid ?? null,
      running: board?.running ?? false,
      url: board?.running ? readyUrl(paths.boardReady) : null,
      logFile: paths.boardLog,
    },
  };
}
