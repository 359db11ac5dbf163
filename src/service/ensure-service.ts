import { connectClient, type ConnectedClient } from '../temporal/connection';
import type { CliContext } from './context';
import { resolveTarget, type TemporalTarget } from '../temporal/target';

/**
 * Connects to the configured Temporal; with none configured, brings up the embedded service first (idempotent), so
 * that `loopy run` works right after `npm ci`.
 */
export async function connectOrStart(
  ctx: CliContext,
): Promise<ConnectedClient & { target: TemporalTarget; uiAddress: string | null }> {
  let target = resolveTarget(ctx.config, ctx.stateDir);
  let uiAddress: string | null = null;
  if (target.source === 'embedded') {
    // Loaded here only: the control verbs (connectExisting) fail fast when the service is down, without loading
    // what starting it takes (the dev server, the receiver, the GitHub client: about half a second).
    const { startService } = await import('./service.js');
    const started = await startService(ctx);
    if (started.worker.replaced) {
      const { describeReplaced } = await import('./replace-unresponsive.js');
      ctx.logger.warn(
        `${describeReplaced(started.worker.replaced)}; started a worker (pid ${started.worker.pid})`,
      );
    }
    if (started.server?.started || started.worker.started) {
      ctx.logger.info(
        `started the embedded Temporal service (Web UI ${started.uiAddress ?? 'n/a'}); \`the-loop stop\` stops it`,
      );
    }
    target = started.target;
    uiAddress = started.uiAddress;
  }
  const connected = await connectClient(target);
  return { ...connected, target, uiAddress };
}
