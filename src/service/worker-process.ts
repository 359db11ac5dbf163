import { ensureRepoPollers } from '../bridge/pollers';
import { startWorkers, type RunningWorkers } from '../worker/run-worker';
import { installWorkerRuntime } from '../worker/runtime';
import { defaultHostId } from '../temporal/queues';
import { connectClient } from '../temporal/connection';
import type { CliContext } from './context';
import { resolveTarget, type TemporalTarget } from '../temporal/target';
import { refuseSecond, registerPid } from './self-registration';
import { startHeartbeat } from './worker-heartbeat';
import { errorLine } from '../errors';

/**
 * `the-loop worker`: a worker in this process until SIGINT/SIGTERM (the SDK's shutdown signals). Started by hand or
 * by `the-loop start`, it registers itself in the state directory's worker.pid, so that `status` reports it and
 * `start` / `loopy run` use it instead of starting a second one; it refuses to run beside another. Its heartbeat
 * (worker-heartbeat.ts) tells them whether it still answers.
 */
export async function runWorkerCommand(ctx: CliContext, readyFile?: string): Promise<void> {
  const target = resolveTarget(ctx.config, ctx.stateDir);
  // Fail in seconds with a clear message instead of letting the native connection retry forever.
  await (await connectClient(target)).close();
  await refuseSecond(ctx.stateDir, 'worker');
  const unregister = registerPid(ctx.stateDir, 'worker');
  try {
    // From registration on, so that `status` and `start` can tell a worker that answers from one that does not.
    const heartbeat = await startHeartbeat(ctx.stateDir, ctx.logger);
    try {
      const running = await startServiceWorkers(ctx, target, readyFile);
      heartbeat.ready();
      await startPollers(ctx, target, running.hostQueue);
      await running.done;
    } finally {
      await heartbeat.stop();
    }
  } finally {
    await unregister();
  }
}

/**
 * The GitHub poller is an ingress path of its own: the service brings up one `repo-poller/<repo>` per
 * poller.repositories entry (joining any that already runs). A failure is logged, never fatal to the worker.
 */
export async function startPollers(
  ctx: CliContext,
  target: TemporalTarget,
  hostQueue: string,
): Promise<void> {
  if (ctx.config.poller.repositories.length === 0) return;
  try {
    const connected = await connectClient(target);
    try {
      const ids = await ensureRepoPollers(connected.client, ctx.config, {
        taskQueue: ctx.config.temporal.taskQueue,
        hostQueue,
      });
      ctx.logger.info(`pollers running: ${ids.join(', ')}`);
    } finally {
      await connected.close();
    }
  } catch (error) {
    ctx.logger.warn(`could not start the GitHub pollers: ${errorLine(error)}`);
  }
}

/** The SDK's runtime (its logs into ours, metrics when configured), then the workers of this state directory. */
export async function startServiceWorkers(
  ctx: CliContext,
  target: TemporalTarget,
  readyFile?: string,
): Promise<RunningWorkers> {
  const metrics = installWorkerRuntime(ctx.config, ctx.logger);
  if (metrics) ctx.logger.info(`metrics for Prometheus at ${metrics}`);
  return startWorkers({
    target,
    taskQueue: ctx.config.temporal.taskQueue,
    deps: {
      config: ctx.config,
      configPath: ctx.configPath,
      stateDir: ctx.stateDir,
      hostId: defaultHostId(ctx.config),
    },
    ...(readyFile !== undefined ? { readyFile } : {}),
    logger: ctx.logger,
  });
}
