import { hostname } from 'node:os';
import { ApplicationFailure, CompleteAsyncError, Context } from '@temporalio/activity';
import {
  answerPermission,
  closeSession,
  cleanupLocal,
  deliverEvent,
  deriveNode,
  nodeArtifactsMissing,
  enterNode,
  type EnterNodeInput,
  HostError,
  hostVerbNamed,
  type HostVerbCall,
  openSession,
  postKeywordComment,
  recordControl,
  recordDropped,
  recordWaiting,
  runHostVerb,
  spawnSession,
  type HostContext,
} from '../work-item/host';
import { budgetLine, gateLine, mirrorLine } from '../work-item/host/thread';
import { loadConfig } from '../config/load';
import type { TheLoopConfig } from '../config/schema';
import { RefError } from '../work-item/ref';
import {
  linkPullRequestUpdate,
  restartUpdate,
  type CloseReport,
  type CommentOutcome,
  type DroppedEvent,
  type LinkReport,
  type LinkRequest,
  type OpenReport,
  type PermissionAnswer,
  type RestartReport,
  type RestartRequest,
  type SessionWaiting,
  type WorkItemControlCommand,
  type WorkItemHarnessName,
} from '../workflows/work-item/messages';
import type { ProcessGraph } from '../config/process-graph';
import type { ActivityDeps } from './deps';

/**
 * What every host activity is given: the work item. Where its records live is this worker's setting (its deps'
 * config and state directory); the `registryDir`/`portableDir` that older runs still send are ignored.
 */
interface Common {
  workItem: string;
}

/** A close's input: the events still queued (absent from older runs), which no turn will take. */
interface Dropping {
  dropped?: DroppedEvent[];
}

/** HostError and RefError are bad input or a missing harness: retrying will not help. */
async function guarded<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof HostError && error.kind === 'spawn-failed') {
      // a retry would only spawn the same failing harness again
      throw ApplicationFailure.nonRetryable(error.message, 'WorkItemSpawnFailed');
    }
    if (error instanceof HostError && error.kind !== 'failed') {
      throw ApplicationFailure.nonRetryable(error.message, 'WorkItemBadInput');
    }
    if (error instanceof RefError) throw ApplicationFailure.nonRetryable(error.message, 'WorkItemBadInput');
    throw error;
  }
}

/**
 * Heartbeats the activity that is running now; a clone that takes minutes keeps reporting. The context is
 * taken when the host context is built (inside the activity), not when the tick fires.
 */
function heartbeatOfThisActivity(): () => void {
  const activity = Context.current();
  return () => activity.heartbeat();
}

/** A host operation's lines go to the worker's log through the activity's logger, with the activity's ids. */
function logOfThisActivity(): (line: string) => void {
  const activity = Context.current();
  return (line) => activity.log.warn(line);
}

/** The work-item host activities: they run on the host queue of the machine that holds the session. */
export function createWorkItemActivities(deps: ActivityDeps) {
  // The doc's rule: the config and env.file are re-read at every spawn and restart, so an edit needs no worker
  // restart and `sessions restart` applies what the CLI announced. A file that no longer parses is bad input.
  const currentConfig = (): TheLoopConfig => {
    if (!deps.configPath) return deps.config;
    try {
      return loadConfig(deps.configPath).config;
    } catch (error) {
      throw new HostError((error as Error).message, 'bad-input');
    }
  };
  const ctx = (): HostContext => ({
    config: currentConfig(),
    configPath: deps.configPath ?? null,
    stateDir: deps.stateDir,
    ...(deps.procRoot !== undefined ? { procRoot: deps.procRoot } : {}),
    ...(deps.github !== undefined ? { github: deps.github } : {}),
    heartbeat: heartbeatOfThisActivity(),
    signal: Context.current().cancellationSignal,
    log: logOfThisActivity(),
    ...(deps.turns !== undefined ? { turns: deps.turns } : {}),
    mirror: deps.mirror ?? null,
    ...(deps.faultPoint !== undefined ? { faultPoint: deps.faultPoint } : {}),
  });
  /** A line in the work item's thread, after the host operation it tells of succeeded. */
  const mirrored =
    <T>(input: Common, text: (result: T) => string | null) =>
    (result: T) => {
      try {
        const line = text(result);
        if (line !== null) mirrorLine(ctx(), input.workItem, line);
      } catch {
        // best effort: a config that stopped parsing fails the next operation, not this finished one
      }
      return result;
    };
  /** Records the dropped events before the close runs; the close's report then says so first. */
  const dropping = (input: Common & Dropping) => {
    const line = recordDropped(ctx(), input.workItem, input.dropped);
    return (report: CloseReport): CloseReport =>
      line === null ? report : { ...report, lines: [line, ...report.lines] };
  };
  async function workItemCleanup(input: Common & Dropping): Promise<CloseReport> {
    return guarded(async () => {
      const said = dropping(input);
      const result = await cleanupLocal(ctx(), input.workItem);
      // the lines name this machine's paths: the thread hears only what happened
      mirrored(input, () =>
        result.nothingToDo
          ? `cleanup on ${hostname()}: nothing was left to release`
          : `cleaned up on ${hostname()}: its tmux session, checkout and local record are gone (the portable record is kept)`,
      )(result);
      return said({
        workItem: result.workItem,
        lines: result.lines,
        endedLiveSession: !result.nothingToDo,
        removedCheckout: null,
        tmuxKept: false,
      });
    });
  }
  return {
    async workItemOpen(
      input: Common & {
        workflowId: string;
        runId: string;
        taskQueue: string;
        hostQueue: string;
        registration: { harness: WorkItemHarnessName; conversationId: string; cwd: string } | null;
      },
    ): Promise<{ report: OpenReport; lastIteration: number }> {
      return guarded(async () => {
        const result = await openSession(ctx(), {
          ...input,
          openedMs: Context.current().info.scheduledTimestampMs,
        });
        return {
          lastIteration: result.lastIteration,
          report: {
            workItem: result.record.work_item,
            workflowId: input.workflowId,
            runId: input.runId,
            sessionDir: result.record.session_dir,
            harness: result.record.harness,
            conversationId: result.record.harness_session_id,
            cwd: result.record.cwd,
            warnings: result.warnings,
          },
        };
      });
    },
    async workItemSpawn(input: Common) {
      return guarded(() => spawnSession(ctx(), input.workItem));
    },
    async workItemDeliver(input: Common & { eventId: string; text: string; iteration: number }) {
      return guarded(async () => {
        const result = await deliverEvent(ctx(), {
          ...input,
          taskToken: Context.current().info.taskToken,
        });
        // the turn-ended report completes this activity (the worker's hosted turns keep its token)
        if (result.outcome === 'awaiting') throw new CompleteAsyncError();
        return result;
      });
    },
    async workItemClose(
      input: Common & Dropping & { keepTmux: boolean | null; reason: string },
    ): Promise<CloseReport> {
      const said = await guarded(() => dropping(input));
      return guarded(() => closeSession(ctx(), input))
        .then(mirrored(input, () => `closed: ${input.reason}`))
        .then(said);
    },
    workItemCleanup,
    /** An authorized closure: cleanup per routing.cleanupOnClose, else the normal close path. */
    async workItemClosure(input: Common & Dropping & { reason: string }): Promise<CloseReport> {
      await guarded(() =>
        recordControl(ctx(), { ...input, command: 'cleanup', by: 'the-loop', via: 'closure' }),
      );
      if (!deps.config.routing.cleanupOnClose) {
        const said = await guarded(() => dropping(input));
        return guarded(() => closeSession(ctx(), { ...input, keepTmux: null }))
          .then(mirrored(input, () => `closed: ${input.reason}`))
          .then(said);
      }
      mirrored(input, () => `closed: ${input.reason}`)(null);
      return workItemCleanup(input);
    },
    async workItemRecordControl(
      input: Common & {
        command: WorkItemControlCommand;
        by: string;
        via: 'cli' | 'comment' | 'closure' | 'board';
      },
    ): Promise<void> {
      // start is told by the spawn's announcement
      return guarded(() => recordControl(ctx(), input)).then(
        mirrored(input, () =>
          input.command === 'start' ? null : `the-loop ${input.command} by ${input.by}`,
        ),
      );
    },
    /** A person's answer to the permission prompt the pane's hook holds on this worker. */
    async workItemAnswerPermission(input: Common & { answer: PermissionAnswer }): Promise<void> {
      return guarded(() => answerPermission(ctx(), input.workItem, input.answer));
    },
    /** The session's wait for a person (null: none) into its registry record and event log. */
    async workItemRecordWaiting(input: Common & { waiting: SessionWaiting | null }): Promise<void> {
      // a budget reached is told in the thread (a pane's wait and a gate are told where they begin)
      return guarded(() => recordWaiting(ctx(), input.workItem, input.waiting)).then(
        mirrored(input, () => (input.waiting?.reason === 'budget' ? budgetLine(input.waiting.detail) : null)),
      );
    },
    async workItemComment(input: Common & { command: WorkItemControlCommand }): Promise<CommentOutcome> {
      return guarded(() => postKeywordComment(ctx(), input.workItem, input.command));
    },
    async workItemEnterNode(
      input: Common & Omit<EnterNodeInput, 'workItem'>,
    ): Promise<{ warnings: string[] }> {
      // a gate (the node with a comment) asks the thread too
      return guarded(() => enterNode(ctx(), input)).then(
        mirrored(input, () => (input.comment === null ? null : gateLine(input.graph, input.node))),
      );
    },
    /** The node the work item's branch says it is at; null for the graph's start node. */
    async workItemDeriveNode(input: Common & { graph: ProcessGraph }): Promise<string | null> {
      return guarded(() => deriveNode(ctx(), input));
    },
    /** The artifacts `node` must leave that the session's directory lacks (host/branch-node.ts). */
    async workItemMissingArtifacts(input: Common & { graph: ProcessGraph; node: string }): Promise<string[]> {
      return guarded(() => nodeArtifactsMissing(ctx(), input));
    },
    /**
     * A `sessions` verb's host side (the list in host/verbs.ts), named by its update and given the request that update
     * types: the one activity every such verb runs through, so a new verb needs no activity of its own.
     */
    async workItemHostVerb(input: Common & HostVerbCall): Promise<unknown> {
      return guarded(() => hostVerbNamed(input.verb).run(ctx(), input.workItem, input.request));
    },
    // Runs started before the 'work-item-host-verbs' patch (work-item/patches.ts) call link-pr and restart by these
    // names (test/histories/work-item-host-verbs-before-patch.json is one): kept registered while such a run may
    // still schedule or retry one.
    async workItemLinkPullRequest({ workItem, ...request }: Common & LinkRequest): Promise<LinkReport> {
      return guarded(() => runHostVerb(ctx(), linkPullRequestUpdate, workItem, request));
    },
    async workItemRestart({ workItem, ...request }: Common & RestartRequest): Promise<RestartReport> {
      return guarded(() => runHostVerb(ctx(), restartUpdate, workItem, request));
    },
  };
}

export type WorkItemActivities = ReturnType<typeof createWorkItemActivities>;
