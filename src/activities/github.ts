import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { resolveProcessGraph } from '../config/process-graph-file';
import { parseRepository, type GitHubClient } from '../github/api';
import { createLocalKnowledge } from '../bridge/knowledge';
import { createGitHubClientFromConfig } from '../github/octokit';
import { createPortablePollLedger } from '../bridge/poll-ledger';
import { pollRepositoryOnce, type RepoPollState } from '../bridge/poller';
import { createTemporalGateway } from '../bridge/temporal-gateway';
import type { WorkItemGateway } from '../bridge/ingress';
import { workItemDirs } from '../work-item/paths';
import type { ActivityDeps } from './deps';

export interface PollRepositoryInput {
  repository: string;
  state: RepoPollState;
  /** Where work-item workflows the poller starts run. */
  taskQueue: string;
  hostQueue: string;
}

export interface PollSummary {
  listed: number;
  /** Events handed to the ingress, and how many of those reached a session (started or signalled). */
  delivered: number;
  acted: number;
  closed: string[];
  /** What happened to each delivered event (first 20): `<action> <work item> — <reason>`. */
  outcomes: string[];
  requests: number;
  notModified: number;
}

export interface PollRepositoryResult {
  state: RepoPollState;
  summary: PollSummary;
}

/** The GitHub bridge's activities; the gateway defaults to this worker's Temporal client. */
export function createGitHubActivities(
  deps: ActivityDeps & { gateway?: (queues: { taskQueue: string; hostQueue: string }) => WorkItemGateway },
) {
  let github: GitHubClient | null = deps.github ?? null;
  const client = () => (github ??= createGitHubClientFromConfig(deps.config, { log: (l) => log.warn(l) }));
  return {
    async pollRepository(input: PollRepositoryInput): Promise<PollRepositoryResult> {
      const repo = parseRepository(input.repository);
      if (!repo)
        throw ApplicationFailure.nonRetryable(
          `'${input.repository}' is not [HOST/]OWNER/REPO`,
          'GitHubBadInput',
        );
      const dirs = workItemDirs(deps.config, deps.stateDir);
      const queues = {
        taskQueue: input.taskQueue,
        hostQueue: input.hostQueue,
        graph: resolveProcessGraph(deps.config.process, null),
      };
      const result = await pollRepositoryOnce(repo, input.state, {
        config: deps.config,
        github: client(),
        gateway: deps.gateway
          ? deps.gateway(queues)
          : createTemporalGateway(Context.current().client, queues, {
              logger: log,
              local: { config: deps.config, stateDir: deps.stateDir, github: client() },
            }),
        knowledge: createLocalKnowledge(dirs),
        ledger: createPortablePollLedger(dirs),
        logger: log,
      });
      return {
        state: result.state,
        summary: {
          listed: result.listed,
          delivered: result.delivered.length,
          acted: result.delivered.filter((o) => o.action === 'started' || o.action === 'signalled').length,
          closed: result.closed,
          outcomes: result.delivered
            .slice(0, 20)
            .map((o) => `${o.action} ${o.workItem ?? '-'} — ${o.reason}`),
          requests: result.requests.total,
          notModified: result.requests.notModified,
        },
      };
    },
  };
}

export type GitHubActivities = ReturnType<typeof createGitHubActivities>;
