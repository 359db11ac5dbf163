import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { GitHubActivities, PollSummary } from '../../activities/github';
import type { RepoPollState } from '../../bridge/poller';

/** One poller per repository: workflow id `repo-poller/<[host/]owner/repo>`. */
export const REPO_POLLER_WORKFLOW_TYPE = 'repoPoller';
export const REPO_POLLER_PREFIX = 'repo-poller/';

export function repoPollerWorkflowId(repository: string): string {
  return `${REPO_POLLER_PREFIX}${repository.toLowerCase()}`;
}

export interface RepoPollerInput {
  /** `[HOST/]OWNER/REPO`. */
  repository: string;
  /** Between cycles, in milliseconds. */
  intervalMs: number;
  /** Activities run where the work-item state lives: this host's queue. */
  hostQueue: string;
  /** Cycles per run before continueAsNew (default 200). */
  cyclesPerRun?: number;
  /** Carried across continueAsNew: ETags and per-item cursors. */
  state?: RepoPollState;
  cycle?: number;
}

export interface PollCycleSummary extends PollSummary {
  cycle: number;
  at: string;
  error: string | null;
}

export interface RepoPollerStatus {
  repository: string;
  cycle: number;
  last: PollCycleSummary | null;
}

/** Poll right now and answer with that cycle's summary (tests, and `the-loop` after a config change). */
export const pollNowUpdate = defineUpdate<PollCycleSummary, []>('repoPoller.pollNow');
export const stopPollerSignal = defineSignal('repoPoller.stop');
export const pollerStatusQuery = defineQuery<RepoPollerStatus>('repoPoller.status');

export async function repoPoller(input: RepoPollerInput): Promise<void> {
  const github = proxyActivities<GitHubActivities>({
    taskQueue: input.hostQueue,
    startToCloseTimeout: '5 minutes',
    scheduleToStartTimeout: '10 minutes',
    retry: { maximumAttempts: 3, initialInterval: '2s', nonRetryableErrorTypes: ['GitHubBadInput'] },
  });
  let state: RepoPollState = input.state ?? { listingEtag: null, items: {} };
  let cycle = input.cycle ?? 0;
  let last: PollCycleSummary | null = null;
  let running = false;
  let wanted = 0;
  let stopped = false;
  const perRun = input.cyclesPerRun ?? 200;

  setHandler(pollerStatusQuery, () => ({ repository: input.repository, cycle, last }));
  setHandler(stopPollerSignal, () => {
    stopped = true;
  });
  setHandler(pollNowUpdate, async () => {
    const target = cycle + (running ? 2 : 1);
    wanted = Math.max(wanted, target);
    await condition(() => cycle >= target || stopped);
    if (!last) throw new Error('the poller stopped before polling');
    return last;
  });

  for (let n = 0; n < perRun; n++) {
    if (n > 0 || input.state) await condition(() => stopped || wanted > cycle, input.intervalMs);
    if (stopped) break;
    running = true;
    const at = new Date().toISOString();
    try {
      const result = await github.pollRepository({
        repository: input.repository,
        state,
        taskQueue: workflowInfo().taskQueue,
        hostQueue: input.hostQueue,
      });
      state = result.state;
      last = { cycle: cycle + 1, at, ...result.summary, error: null };
    } catch (error) {
      const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
      last = {
        cycle: cycle + 1,
        at,
        listed: 0,
        delivered: 0,
        acted: 0,
        closed: [],
        outcomes: [],
        requests: 0,
        notModified: 0,
        error: cause instanceof Error ? cause.message : String(cause),
      };
    }
    cycle += 1;
    running = false;
  }
  await condition(allHandlersFinished);
  if (stopped) return;
  await continueAsNew<typeof repoPoller>({ ...input, state, cycle });
}
