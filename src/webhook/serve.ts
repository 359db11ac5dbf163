import { connectClient } from '../temporal/connection';
import type { TheLoopConfig } from '../config/schema';
import { resolveTarget } from '../temporal/target';
import { createLocalKnowledge } from '../bridge/knowledge';
import { createGitHubClientFromConfig, describeAuth, resolveGitHubAuth } from '../github/octokit';
import { ensureRepoPollers } from '../bridge/pollers';
import { createTemporalGateway } from '../bridge/temporal-gateway';
import { workItemDirs } from '../work-item/paths';
import { defaultHostId, hostQueueName } from '../worker/queues';
import { resolveProcessGraph } from '../config/process';
import { DeliveryLedger, deliveryLedgerFile } from './dedupe';
import { DeliveryInbox, deliveryInboxFile } from './inbox';
import { createDeliveryHandler } from './handler';
import { createReceiver, type Receiver } from './receiver';
import type { Logger } from '../log/logger';

/** What the receiver needs from whoever runs it (the `webhook` command, `the-loop dev`). */
export interface WebhookContext {
  config: TheLoopConfig;
  stateDir: string;
  logger: Logger;
}

export interface RunningReceiver {
  receiver: Receiver;
  url: string;
  close(): Promise<void>;
}

/** Connects to Temporal and GitHub and serves the receiver until closed. */
export async function serveWebhook(
  ctx: WebhookContext,
  options: { secret: string; port?: number; path?: string; host?: string },
): Promise<RunningReceiver> {
  const { config, logger } = ctx;
  const connected = await connectClient(resolveTarget(config, ctx.stateDir));
  const taskQueue = config.temporal.taskQueue;
  const queues = {
    taskQueue,
    hostQueue: hostQueueName(taskQueue, defaultHostId(config)),
    graph: resolveProcessGraph(config.process, null),
  };
  const auth = resolveGitHubAuth(config);
  logger.info(`webhook: GitHub ${describeAuth(auth)} at ${config.github.apiUrl}`);
  const github = createGitHubClientFromConfig(config, { log: (line) => logger.warn(line) });
  // the pollers are the other ingress path; whoever brings the bridge up makes sure they run
  const pollers = await ensureRepoPollers(connected.client, config, queues);
  if (pollers.length > 0) logger.info(`webhook: pollers running: ${pollers.join(', ')}`);
  const receiver = createReceiver({
    secret: options.secret,
    path: options.path ?? config.webhook.path,
    maxBodyBytes: config.webhook.maxBodyBytes,
    ledger: DeliveryLedger.open(deliveryLedgerFile(ctx.stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(ctx.stateDir), {
      onBadLine: (problem) => logger.warn(problem),
    }),
    forwardConcurrency: config.webhook.forwardConcurrency,
    logger,
    handle: createDeliveryHandler({
      config,
      github,
      gateway: createTemporalGateway(connected.client, queues, {
        logger,
        local: { config, stateDir: ctx.stateDir, github },
      }),
      knowledge: createLocalKnowledge(workItemDirs(config, ctx.stateDir)),
      logger,
    }),
  });
  let url: string;
  try {
    ({ url } = await receiver.listen(options.port ?? config.webhook.port, options.host ?? '127.0.0.1'));
  } catch (error) {
    await connected.close();
    throw error;
  }
  return {
    receiver,
    url,
    async close() {
      await receiver.close();
      await connected.close();
    },
  };
}
