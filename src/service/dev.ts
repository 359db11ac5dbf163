import { spawnDevServer, stopProcess, waitForServer } from './dev-server';
import { resolveTemporalCli } from './resolve-cli';
import { serveWebhook, type RunningReceiver } from '../webhook/serve';
import { webhookSecret } from '../webhook/secret';
import { startWorkers } from '../worker/run-worker';
import { defaultHostId } from '../worker/queues';
import type { CliContext } from './context';
import { CliError, errorLine, EXIT } from '../errors';
import { servicePaths } from './service-processes';
import { withServiceLock } from './service-lock';
import { refuseForeignListener, refuseSecond, registerPid } from './self-registration';
import { resolveTarget } from '../temporal/target';
import { startPollers } from './worker-process';
import { installWorkerRuntime } from '../worker/runtime';

/**
 * `the-loop dev`: the dev server as a child and a worker in this process; Ctrl-C stops both. Both are registered in
 * the state directory like `start`'s, so `status` reports them and `start` / `loopy run` use them; it refuses to
 * run beside a service that already runs there.
 */
export async function runDev(ctx: CliContext): Promise<void> {
  const unregister: (() => Promise<void>)[] = [];
  let serverPid: number | null = null;
  try {
    const { target, running } = await withServiceLock(ctx.stateDir, ctx.logger, async () => {
      for (const role of ['server', 'worker', 'webhook'] as const) await refuseSecond(ctx.stateDir, role);
      let target = resolveTarget(ctx.config, ctx.stateDir);
      if (target.source === 'embedded') {
        const { ip, port, uiPort } = ctx.config.temporal.devServer;
        await refuseForeignListener(`${ip}:${port}`, ctx.stateDir);
        const cli = await resolveTemporalCli({ onProgress: (line) => ctx.logger.info(line) });
        const paths = servicePaths(ctx.stateDir);
        const handle = spawnDevServer({
          cliPath: cli.path,
          dbFile: paths.dbFile,
          logFile: paths.serverLog,
          ip,
          port,
          uiPort,
          detached: false,
        });
        serverPid = handle.pid;
        unregister.push(registerPid(ctx.stateDir, 'server', handle.pid));
        try {
          await waitForServer(handle.address, handle.pid, 90_000);
        } catch (error) {
          throw new CliError((error as Error).message, EXIT.unavailable);
        }
        ctx.logger.info(
          `Temporal dev server on ${handle.address}, Web UI ${handle.uiAddress} (Ctrl-C stops both)`,
        );
        target = { ...target, address: handle.address, connectionOptions: { address: handle.address } };
      }
      unregister.push(registerPid(ctx.stateDir, 'worker'));
      const metrics = installWorkerRuntime(ctx.config, ctx.logger);
      if (metrics) ctx.logger.info(`metrics for Prometheus at ${metrics}`);
      const running = await startWorkers({
        target,
        taskQueue: ctx.config.temporal.taskQueue,
        deps: {
          config: ctx.config,
          configPath: ctx.configPath,
          stateDir: ctx.stateDir,
          hostId: defaultHostId(ctx.config),
        },
        logger: ctx.logger,
      });
      return { target, running };
    });
    // The same ingress as `the-loop start`: the GitHub pollers, and the webhook receiver when a secret is set.
    await startPollers(ctx, target, running.hostQueue);
    const secret = webhookSecret(ctx);
    let receiver: RunningReceiver | null = null;
    if (secret) {
      try {
        receiver = await serveWebhook(ctx, { secret });
        unregister.push(registerPid(ctx.stateDir, 'webhook'));
        ctx.logger.info(`webhook receiver on ${receiver.url}`);
      } catch (error) {
        ctx.logger.warn(`could not start the webhook receiver: ${errorLine(error)}`);
      }
    }
    await running.done;
    await receiver?.close();
  } finally {
    if (serverPid !== null) await stopProcess(serverPid, 15_000);
    for (const remove of unregister) await remove();
  }
  ctx.logger.info('stopped');
}
