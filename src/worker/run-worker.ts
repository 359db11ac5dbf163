import { workItemBudgetWait } from '../budget/wait';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { TemporalTarget } from '../temporal/target';
import { ensureSearchAttributes } from './search-attributes';
import { buildSupervisor, describeSupervisor } from '../harness/build-supervisor';
import { describeContainment, probeContainment } from '../harness/containment';
import { hostQueueName } from '../workflows/goal-session/host-queue';
import { errorLine } from '../errors';
import { connectClient } from '../temporal/connection';
import { parseDuration } from '../config/duration';
import { startHostedTurns } from './hosted-turns';
import { hookChannelDir, liveStatusSocket } from './socket-dir';
import { startLiveStatusServer, statusThrough, type LiveStatusServer } from './live-status-server';
import type { PromptAnswer } from '../work-item/host/pane-state';
import { silentLog, type MessageLog } from '../log/message-log';
import { threadMirrorFromConfig } from '../channel/mirror';
import { mirrorToThread } from '../work-item/host/thread';
import { recordPromptAnswer } from '../work-item/host/permission';
import { hostGitHub } from '../activities/host-github';
import { waitingCommenter } from './waiting-comment';
import { workItemDirs } from '../work-item/paths';
import { countMissedTurns, countTurnsSpent } from '../work-item/host/spent';
import { priceTable } from '../pricing/prices';
import { logDeliveredOnce } from '../work-item/event-log';
import { parseWorkItemRef, refSlug } from '../work-item/ref';

export interface WorkerSetup {
  target: TemporalTarget;
  taskQueue: string;
  deps: ActivityDeps;
  /** A pre-built bundle (tests bundle once per run); otherwise the workflows are bundled at start-up. */
  workflowBundlePath?: string;
  shutdownGraceTime?: string;
  /** Written once both workers poll, so `the-loop start` knows the worker is up. */
  readyFile?: string;
  /** The process's logger; in-process test workers log nothing of their own. */
  logger?: MessageLog;
}

export interface RunningWorkers {
  workers: Worker[];
  hostQueue: string;
  /** Resolves when both workers have stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

// Cancellation reaches an activity only with a heartbeat response: keep the throttle short so stop is prompt.
const HEARTBEAT_THROTTLE = '1s';
/**
 * How long a workflow task waits on a worker's sticky queue before the server hands it to any worker. The SDK's
 * 10 s default is added to every recovery from a crashed worker (the task waits for the dead worker's cache);
 * 2 s keeps crash recovery at about the heartbeat timeout, and costs a live but busy worker at most a replay.
 */
const STICKY_SCHEDULE_TO_START = '2s';

export async function startWorkers(setup: WorkerSetup): Promise<RunningWorkers> {
  const logger = setup.logger ?? silentLog;
  const connection = await NativeConnection.connect({
    ...setup.target.connectionOptions,
    address: setup.target.address,
  });
  await registerSearchAttributes(setup.target, logger);

  // The hooks of hosted panes report here; a turn's activity is completed through this client.
  const turnClient = await connectClient(setup.target);
  // the work item's Slack thread, when configured: warnings go to this process's log
  const mirror =
    setup.deps.mirror !== undefined
      ? setup.deps.mirror
      : await threadMirrorFromConfig(setup.deps.config, (line) => logger.warn(line));
  const dirs = workItemDirs(setup.deps.config, setup.deps.stateDir);
  const warn = (line: string) => logger.warn(line);
  // one GitHub client for the worker: its host activities, its GitHub activities and the waiting comment
  const github = hostGitHub(setup.deps, warn)();
  const onWaiting = waitingCommenter(setup.deps.config, () => github, warn);
  const stuckAfterMs = parseDuration(setup.deps.config.routing.stuckAfter);
  const { permissions } = setup.deps.config;
  const timeoutMs = permissions.timeout === undefined ? null : parseDuration(permissions.timeout);
  const turns = await startHostedTurns({
    dir: hookChannelDir(setup.deps.stateDir),
    client: turnClient.client,
    logger,
    ...(stuckAfterMs !== null ? { stuckAfterMs } : {}),
    ...(onWaiting ? { onWaiting } : {}),
    onAnswered: (workItem: string, answer: PromptAnswer) =>
      recordPromptAnswer(dirs, mirror, workItem, answer),
    policy: { remote: permissions.remote },
    ...(timeoutMs !== null ? { timeout: { ms: timeoutMs, decision: permissions.onTimeout } } : {}),
    ...(mirror
      ? { mirror: (workItem: string, text: string) => mirrorToThread(mirror, dirs, workItem, text) }
      : {}),
    prices: priceTable(setup.deps.config.pricing),
    onTurnBegan: (pending) => {
      try {
        const slug = refSlug(parseWorkItemRef(pending.work_item));
        logDeliveredOnce(dirs, slug, pending.work_item, {
          eventId: pending.event_id,
          iteration: pending.iteration,
        });
      } catch (error) {
        warn(`${pending.work_item}: turn ${pending.iteration}'s delivery was not logged: ${String(error)}`);
      }
    },
    // counted from the turns' result.json, which the turn's end wrote first
    onTurnUsage: async (workItem, sessionDir, iteration) => {
      try {
        const spentUsd = await countTurnsSpent(dirs, workItem, sessionDir, warn);
        const budget = workItemBudgetWait(setup.deps.config, dirs.stateRoot, workItem, spentUsd);
        return { spentUsd, budget: budget?.detail ?? null };
      } catch (error) {
        warn(`${workItem}: turn ${iteration}'s cost was not recorded: ${String(error)}`);
        return null;
      }
    },
  });
  await countMissedTurns(dirs, warn);
  // After the hook channel, which creates the sockets' 0700 directory.
  const liveStatus: LiveStatusServer | null = await startLiveStatusServer({
    socketPath: liveStatusSocket(setup.deps.stateDir),
    target: setup.target,
    query: statusThrough(turnClient.client),
  }).catch((error: unknown) => {
    warn(`live status socket not served (loopy status asks Temporal itself): ${errorLine(error)}`);
    return null;
  });
  const activities = createActivities({ ...setup.deps, turns, mirror, ...(github ? { github } : {}) });
  const hostQueue = hostQueueName(setup.taskQueue, setup.deps.hostId);
  const limits = setup.deps.config.worker;
  const common: Partial<WorkerOptions> = {
    connection,
    namespace: setup.target.namespace,
    shutdownGraceTime: setup.shutdownGraceTime ?? limits.shutdownGraceTime,
    maxConcurrentActivityTaskExecutions: limits.maxConcurrentActivityTaskExecutions,
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    defaultHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    stickyQueueScheduleToStartTimeout: STICKY_SCHEDULE_TO_START,
  };
  const workflowWorker = await Worker.create({
    ...common,
    taskQueue: setup.taskQueue,
    activities,
    maxCachedWorkflows: limits.maxCachedWorkflows,
    ...(setup.workflowBundlePath
      ? { workflowBundle: { codePath: setup.workflowBundlePath } }
      : { workflowsPath: require.resolve('../workflows') }),
  });
  const hostWorker = await Worker.create({ ...common, taskQueue: hostQueue, activities });
  const workers = [workflowWorker, hostWorker];
  const done = Promise.all(workers.map((w) => w.run())).then(async () => {
    await turns.close();
    await liveStatus?.close();
    await mirror?.settled();
    await turnClient.close();
    await connection.close();
  });
  if (setup.readyFile) {
    mkdirSync(dirname(setup.readyFile), { recursive: true });
    writeFileSync(
      setup.readyFile,
      JSON.stringify({ pid: process.pid, taskQueue: setup.taskQueue, hostQueue }),
    );
  }
  logger.info(`worker polling ${setup.taskQueue} and ${hostQueue} on ${setup.target.address}`);
  // What the harness runs of this host get, in the log an operator reads first (`the-loop status` says it too).
  void probeContainment(null).then(
    (containment) => logger.info(describeContainment(containment)),
    (error: unknown) => logger.warn(`containment not probed: ${(error as Error).message}`),
  );
  // Built once per machine; until it is there (or without a compiler), the shell supervisor starts the turns.
  void buildSupervisor().then(
    (build) => {
      if (build.kind === 'compiled') logger.info(describeSupervisor(build));
      else logger.warn(describeSupervisor(build));
    },
    (error: unknown) => logger.warn(`supervisor not built: ${(error as Error).message}`),
  );
  return {
    workers,
    hostQueue,
    done,
    async shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

async function registerSearchAttributes(target: TemporalTarget, logger: MessageLog): Promise<void> {
  const connection = await Connection.connect({
    ...target.connectionOptions,
    address: target.address,
  } as Parameters<typeof Connection.connect>[0]);
  try {
    const added = await ensureSearchAttributes(connection, target.namespace);
    if (added.length > 0) logger.info(`registered search attributes: ${added.join(', ')}`);
  } catch (error) {
    // Temporal Cloud refuses the operator API to most keys; its attributes are created in the Cloud UI.
    logger.warn(`could not register search attributes (${errorLine(error)}); create them by hand`);
  } finally {
    await connection.close();
  }
}
