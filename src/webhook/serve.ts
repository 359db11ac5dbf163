import { connectClient } from '../temporal/connection';
import type { TheLoopConfig } from '../config/schema';
import { resolveTarget } from '../temporal/target';
import { createGitHubClientFromConfig, describeAuth, resolveGitHubAuth } from '../github/octokit';
import { ensureRepoPollers } from '../bridge/pollers';
import { createTemporalGateway } from '../bridge/temporal-gateway';
import { workItemDirs } from '../work-item/paths';
import { defaultHostId } from '../temporal/queues';
import { hostQueueName } from '../workflows/goal-session/host-queue';
import { resolveProcessGraph } from '../config/process-graph-file';
import { DeliveryLedger, deliveryLedgerFile } from './dedupe';
import { DeliveryInbox, deliveryInboxFile } from './inbox';
import { bridgeHandlerModule } from './bridge-handler';
import { createReceiver, type Receiver } from './receiver';
import type { Logger } from '../log/logger';
import type { RequestListener } from 'node:http';
import type { WorkItemGateway } from '../bridge/ingress';
import { createSlackReplySink } from '../bridge/slack-replies';
import { workItemOfThread } from '../work-item/host/thread';
import { createSlackEventsRoute, SLACK_EVENTS_PATH } from './slack-events';

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
  const ledger = DeliveryLedger.open(deliveryLedgerFile(ctx.stateDir));
  const gateway = createTemporalGateway(connected.client, queues, {
    logger,
    local: { config, stateDir: ctx.stateDir, github },
  });
  const routes = await slackRoutes(ctx, { ledger, gateway });
  const receiver = createReceiver({
    secret: options.secret,
    routes,
    path: options.path ?? config.webhook.path,
    maxBodyBytes: config.webhook.maxBodyBytes,
    ledger,
    inbox: await DeliveryInbox.open(deliveryInboxFile(ctx.stateDir), {
      onBadLine: (problem) => logger.warn(problem),
    }),
    forwardConcurrency: config.webhook.forwardConcurrency,
    logger,
    // the forwarding thread opens its own Temporal connection; this one serves the pollers and Slack
    handlerModule: bridgeHandlerModule({ config, stateDir: ctx.stateDir }),
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

/**
 * `/slack/events` beside the GitHub route when `slack` is configured and its signing secret is set (else one
 * warning, and Slack is not served). Slack event ids are claimed in the same delivery ledger as GitHub's.
 */
async function slackRoutes(
  ctx: WebhookContext,
  shared: { ledger: DeliveryLedger; gateway: WorkItemGateway },
): Promise<Map<string, RequestListener>> {
  const routes = new Map<string, RequestListener>();
  const slack = ctx.config.slack;
  if (!slack) return routes;
  const { slackSigningSecret } = await import('../channel/from-config.js');
  const signingSecret = slackSigningSecret(ctx.config);
  if (!signingSecret) {
    ctx.logger.warn(`webhook: ${slack.signingSecretEnv} is not set; ${SLACK_EVENTS_PATH} is not served`);
    return routes;
  }
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const route = createSlackEventsRoute({
    signingSecret,
    authorizedUsers: slack.authorizedUsers,
    maxBodyBytes: ctx.config.webhook.maxBodyBytes,
    ledger: shared.ledger,
    logger: ctx.logger,
    sink: createSlackReplySink({
      gateway: shared.gateway,
      threadOwner: (threadId) => workItemOfThread(dirs, threadId),
      logger: ctx.logger,
    }),
  });
  routes.set(SLACK_EVENTS_PATH, route);
  ctx.logger.info(`webhook: Slack events at ${SLACK_EVENTS_PATH}`);
  return routes;
}
