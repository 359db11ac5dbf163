import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { connectClient } from '../temporal/connection';
import { resolveTarget } from '../temporal/target';
import { createLocalKnowledge } from '../bridge/knowledge';
import { createGitHubClientFromConfig } from '../github/octokit';
import { createTemporalGateway } from '../bridge/temporal-gateway';
import { workItemDirs } from '../work-item/paths';
import { defaultHostId } from '../temporal/queues';
import { hostQueueName } from '../workflows/goal-session/host-queue';
import { resolveProcessGraph } from '../config/process-graph-file';
import { createDeliveryHandler } from './handler';
import type { HandlerModule, OpenHandler } from './forward-thread';

export interface BridgeHandlerOptions {
  config: TheLoopConfig;
  stateDir: string;
}

/** The bridge's handler for the forwarding thread: its own Temporal connection and GitHub client. */
export const openHandler: OpenHandler = async (options, logger) => {
  const { config, stateDir } = options as BridgeHandlerOptions;
  const connected = await connectClient(resolveTarget(config, stateDir));
  const taskQueue = config.temporal.taskQueue;
  const queues = {
    taskQueue,
    hostQueue: hostQueueName(taskQueue, defaultHostId(config)),
    graph: resolveProcessGraph(config.process, null),
  };
  const github = createGitHubClientFromConfig(config, { log: (line) => logger.warn(line) });
  const gateway = createTemporalGateway(connected.client, queues, {
    logger,
    local: { config, stateDir, github },
  });
  const handle = createDeliveryHandler({
    config,
    github,
    gateway,
    knowledge: createLocalKnowledge(workItemDirs(config, stateDir)),
    logger,
  });
  return { handle, close: () => connected.close() };
};

/** This module compiled (the thread runs plain node), also when it runs from src/ under the test runner. */
const BRIDGE_HANDLER_MODULE = [
  join(__dirname, 'bridge-handler.js'),
  resolve(__dirname, '..', '..', 'dist', 'src', 'webhook', 'bridge-handler.js'),
].find((file) => existsSync(file));

/** The receiver's forwarding thread runs the bridge (the Temporal signal or start) with these. */
export function bridgeHandlerModule(options: BridgeHandlerOptions): HandlerModule {
  if (!BRIDGE_HANDLER_MODULE) throw new Error('bridge-handler.js is not built: run `npm run build`');
  return { module: BRIDGE_HANDLER_MODULE, options };
}
