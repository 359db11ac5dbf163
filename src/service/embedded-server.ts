import { spawnDevServer, type DevServerHandle } from './dev-server';
import { resolveTemporalCli } from './resolve-cli';
import { refuseForeignListener } from './self-registration';
import { servicePaths } from './service-processes';
import type { ServiceContext } from './service';

/**
 * The state directory's own Temporal dev server, as the config sets it: `start` detaches it, `dev` keeps it as its
 * child. Refuses when something else listens on its port.
 */
export async function spawnEmbeddedServer(
  ctx: ServiceContext,
  options: { detached: boolean },
): Promise<{ handle: DevServerHandle; cliPath: string }> {
  const { ip, port, uiPort } = ctx.config.temporal.devServer;
  await refuseForeignListener(`${ip}:${port}`, ctx.stateDir);
  const cli = await resolveTemporalCli({ onProgress: (line) => ctx.logger.info(line) });
  ctx.logger.info(
    `starting the Temporal dev server (${cli.source}: ${cli.path}) on ${ip}:${port}, Web UI http://${ip}:${uiPort}`,
  );
  const paths = servicePaths(ctx.stateDir);
  const handle = spawnDevServer({
    cliPath: cli.path,
    dbFile: paths.dbFile,
    logFile: paths.serverLog,
    ip,
    port,
    uiPort,
    detached: options.detached,
    namespace: ctx.config.temporal.namespace ?? 'default',
  });
  return { handle, cliPath: cli.path };
}
