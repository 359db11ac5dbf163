import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { WorkItemActivities } from '../activities/work-item';
import { LoopStatus } from './search-attributes';
import {
  closeUpdate,
  controlUpdate,
  deliverEventSignal,
  itemClosedSignal,
  linkPullRequestUpdate,
  openedUpdate,
  restartUpdate,
  statusQuery,
  type CloseReport,
  type CloseRequest,
  type CommentOutcome,
  type ControlReport,
  type ControlRequest,
  type DeliverableEvent,
  type OpenReport,
  type WorkItemControlCommand,
  type WorkItemSessionInput,
  type WorkItemStatus,
} from './work-item-messages';

export * from './work-item-messages';

const SEEN_LIMIT = 500;

function messageOf(error: unknown): string {
  let current: unknown = error;
  while (current instanceof ActivityFailure && current.cause) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** An update fails with a readable message rather than failing the workflow task. */
function asUpdateFailure(error: unknown, type = 'WorkItemError'): ApplicationFailure {
  if (error instanceof ApplicationFailure && !(error instanceof ActivityFailure)) return error;
  let current: unknown = error;
  while (current instanceof ActivityFailure && current.cause) current = current.cause;
  const kind = current instanceof ApplicationFailure && current.type ? current.type : type;
  return ApplicationFailure.nonRetryable(messageOf(error), kind);
}

/**
 * One work item ↔ one session: workflow id `work-item/<ref>`. Events are queued here and pasted into the tmux
 * pane by host activities (on the host queue the session recorded when it started), in order, one at a time.
 */
export async function workItemSession(input: WorkItemSessionInput): Promise<CloseReport | null> {
  const host = proxyActivities<WorkItemActivities>({
    taskQueue: input.hostQueue,
    startToCloseTimeout: '5 minutes',
    scheduleToStartTimeout: '7 days',
    retry: { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: ['WorkItemBadInput'] },
  });
  const bestEffort = proxyActivities<WorkItemActivities>({
    taskQueue: input.hostQueue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 1 },
  });

  const carried = input.carried;
  // --registry-dir / --portable-dir, passed to every host activity (portableDir is absent in older runs).
  const dirs = { registryDir: input.registryDir, portableDir: input.portableDir ?? null };
  let status: 'opening' | 'active' | 'paused' | 'closing' | 'closed' = carried ? carried.status : 'opening';
  const queue: DeliverableEvent[] = carried ? [...carried.queue] : [];
  const seen = new Set<string>(carried?.seen ?? []);
  let iteration = carried?.iteration ?? 0;
  let delivered = 0;
  let tmuxLost: string | null = carried?.tmuxLost ?? null;
  let blocked: string | null = null;
  let lastControl: WorkItemControlCommand | null = carried?.lastControl ?? null;
  let opened: OpenReport | null = null;
  let openError: string | null = null;
  let closePromise: Promise<CloseReport> | null = null;
  let closeReport: CloseReport | null;

  // Host operations (spawn, paste, close, restart) run one at a time, in the order they were asked for.
  let tail: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn);
    tail = run.catch(() => undefined);
    return run;
  }

  function setStatus(next: typeof status): void {
    status = next;
    upsertSearchAttributes([{ key: LoopStatus, value: next }]);
  }

  async function comment(request: ControlRequest): Promise<CommentOutcome | null> {
    if (!request.comment) return null;
    try {
      return await bestEffort.workItemComment({
        workItem: input.workItem,
        command: request.command,
        ...dirs,
      });
    } catch (error) {
      return { posted: false, warning: `could not comment: ${messageOf(error)}`, url: null };
    }
  }

  function performClose(request: CloseRequest, kind: 'close' | 'cleanup' = 'close'): Promise<CloseReport> {
    if (closePromise) return closePromise;
    setStatus('closing');
    const attempt = exclusive(async () => {
      const report =
        kind === 'cleanup'
          ? await host.workItemCleanup({ workItem: input.workItem, ...dirs })
          : await host.workItemClose({
              workItem: input.workItem,
              keepTmux: request.keepTmux,
              reason: request.reason,
              ...dirs,
            });
      setStatus('closed');
      return report;
    });
    closePromise = attempt;
    attempt.catch(() => {
      // a failed close can be asked for again
      if (closePromise === attempt) {
        closePromise = null;
        setStatus(lastControl === 'pause' ? 'paused' : 'active');
      }
    });
    return attempt;
  }

  setHandler(statusQuery, (): WorkItemStatus => ({
    workItem: input.workItem,
    status,
    queued: queue.length,
    delivered,
    iteration,
    tmuxLost,
    blocked,
    lastControl,
  }));

  setHandler(deliverEventSignal, (event: DeliverableEvent) => {
    if (status === 'closing' || status === 'closed') return;
    if (seen.has(event.id)) return;
    seen.add(event.id);
    queue.push(event);
  });

  setHandler(itemClosedSignal, async (request: CloseRequest) => {
    try {
      await performClose(request);
    } catch {
      // reported through status; the next close or stop retries
    }
  });

  setHandler(openedUpdate, async (): Promise<OpenReport> => {
    await condition(() => opened !== null || openError !== null || carried !== undefined);
    if (opened) return opened;
    if (openError) throw ApplicationFailure.nonRetryable(openError, 'WorkItemOpenFailed');
    throw ApplicationFailure.nonRetryable('this session continued as new; its record was written earlier');
  });

  setHandler(
    closeUpdate,
    async (request: CloseRequest): Promise<CloseReport> => {
      try {
        return await performClose(request);
      } catch (error) {
        throw asUpdateFailure(error);
      }
    },
    {
      validator: (_request: CloseRequest) => {
        if (status === 'closed') throw new Error(`${input.workItem} is already closed`);
      },
    },
  );

  setHandler(
    controlUpdate,
    async (request: ControlRequest): Promise<ControlReport> => {
      await condition(() => status !== 'opening');
      const report: ControlReport = {
        workItem: input.workItem,
        command: request.command,
        target: null,
        socket: null,
        spawned: false,
        resumed: false,
        lines: [],
        comment: null,
        queued: queue.length,
      };
      const record = () =>
        host.workItemRecordControl({
          workItem: input.workItem,
          command: request.command,
          by: request.by,
          via: request.via,
          ...dirs,
        });
      try {
        switch (request.command) {
          case 'start': {
            const spawned = await exclusive(async () => {
              const result = await host.workItemSpawn({
                workItem: input.workItem,
                ...dirs,
              });
              await record();
              return result;
            });
            tmuxLost = null;
            blocked = null;
            lastControl = 'start';
            setStatus('active');
            Object.assign(report, {
              target: spawned.target,
              socket: spawned.socket,
              spawned: spawned.spawned,
              resumed: spawned.resumed,
            });
            break;
          }
          case 'pause':
          case 'resume': {
            await exclusive(record);
            lastControl = request.command;
            if (request.command === 'resume') blocked = null;
            setStatus(request.command === 'pause' ? 'paused' : 'active');
            break;
          }
          case 'stop': {
            await exclusive(record);
            lastControl = 'stop';
            report.lines = (await performClose({ keepTmux: null, reason: 'stop' })).lines;
            break;
          }
          case 'cleanup': {
            await exclusive(record);
            lastControl = 'cleanup';
            report.lines = (await performClose({ keepTmux: false, reason: 'cleanup' }, 'cleanup')).lines;
            break;
          }
        }
      } catch (error) {
        throw asUpdateFailure(error);
      }
      report.queued = queue.length;
      report.comment = await comment(request);
      return report;
    },
    {
      validator: (request: ControlRequest) => {
        if (!['start', 'pause', 'resume', 'stop', 'cleanup'].includes(request.command)) {
          throw new Error(`unknown control command '${String(request.command)}'`);
        }
        if (status === 'closed' || status === 'closing') {
          throw new Error(`${input.workItem} is already closed`);
        }
      },
    },
  );

  setHandler(linkPullRequestUpdate, async ({ pullRequest }) => {
    try {
      return await exclusive(() =>
        host.workItemLinkPullRequest({
          workItem: input.workItem,
          pullRequest,
          ...dirs,
        }),
      );
    } catch (error) {
      throw asUpdateFailure(error);
    }
  });

  setHandler(restartUpdate, async ({ dryRun }) => {
    try {
      return await exclusive(() => host.workItemRestart({ workItem: input.workItem, dryRun, ...dirs }));
    } catch (error) {
      throw asUpdateFailure(error);
    }
  });

  if (!carried) {
    try {
      const info = workflowInfo();
      const result = await host.workItemOpen({
        workItem: input.workItem,
        workflowId: info.workflowId,
        runId: info.runId,
        taskQueue: input.taskQueue,
        hostQueue: input.hostQueue,
        registration: input.registration,
        ...dirs,
      });
      iteration = result.lastIteration;
      opened = result.report;
      setStatus('active');
    } catch (error) {
      openError = messageOf(error);
      await condition(allHandlersFinished);
      throw ApplicationFailure.nonRetryable(
        `could not open ${input.workItem}: ${openError}`,
        'WorkItemOpenFailed',
      );
    }
  }

  const canDeliver = () =>
    status === 'active' && tmuxLost === null && blocked === null && queue.length > 0 && closePromise === null;

  for (;;) {
    await condition(
      () =>
        closePromise !== null ||
        canDeliver() ||
        (workflowInfo().continueAsNewSuggested && queue.length === 0),
    );
    if (closePromise !== null) {
      try {
        closeReport = await closePromise;
        break;
      } catch {
        continue; // a failed close is reported to whoever asked; the session stays up
      }
    }
    if (!canDeliver()) {
      // idle and the history is long: carry the state into a fresh run
      await condition(allHandlersFinished);
      if (closePromise !== null) continue;
      await continueAsNew<typeof workItemSession>({
        ...input,
        registration: null,
        carried: {
          status: status === 'paused' ? 'paused' : 'active',
          queue,
          iteration,
          seen: [...seen].slice(-SEEN_LIMIT),
          tmuxLost,
          lastControl,
        },
      });
    }
    const event = queue[0];
    if (!event) continue;
    const n = iteration + 1;
    try {
      const result = await exclusive(() =>
        host.workItemDeliver({
          workItem: input.workItem,
          eventId: event.id,
          text: event.text,
          iteration: n,
          ...dirs,
        }),
      );
      if (result.outcome === 'tmux-lost') {
        tmuxLost = result.reason;
        continue;
      }
      iteration = n;
      delivered += 1;
      queue.shift();
    } catch (error) {
      // The event stays queued; `start` (or resume) unblocks it.
      iteration = n;
      blocked = messageOf(error);
    }
  }

  await condition(allHandlersFinished);
  return closeReport;
}
