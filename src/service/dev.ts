import { stopProcess, waitForServer } from './dev-server';
import { serveWebhook, type RunningReceiver } from '../webhook/serve';
import { webhookSecret } from '../webhook/secret';
import type { CliContext } from './context';
import { CliError, errorLine, EXIT } from '../errors';
import { withServiceLock } from './service-lock';
import { refuseSecond, registerPid } from './self-registration';
import { startHeartbeat } from './worker-heartbeat';
import { resolveTarget } from '../temporal/target';
import { startPollers, startServiceWorkers } from './worker-process';
import { spawnEmbeddedServer } from './embedded-server';

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
        const { handle } = await spawnEmbeddedServer(ctx, { detached: false });
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
      const heartbeat = await startHeartbeat(ctx.stateDir, ctx.logger);
      unregister.push(() => heartbeat.stop());
      const running = await startServiceWorkers(ctx, target);
      heartbeat.ready();
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
