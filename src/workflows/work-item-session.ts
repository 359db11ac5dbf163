import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { WorkItemActivities } from '../activities/work-item';
import { LoopStatus } from './search-attributes';
import { asUpdateFailure, causeMessage } from './update-failure';
import type {
  CarriedState,
  CloseReport,
  CloseRequest,
  CommentOutcome,
  ControlReport,
  ControlRequest,
  DeliverableEvent,
  LinkReport,
  LinkRequest,
  OpenReport,
  RestartReport,
  RestartRequest,
  WorkItemControlCommand,
  WorkItemSessionInput,
  WorkItemStatus,
} from './work-item-messages';
import {
  acceptsEvent,
  afterFailedSpawn,
  blankControlReport,
  canDeliver,
  carriedState,
  closeRefusal,
  controlRefusal,
  stateAfterFailedClose,
  type WorkItemState,
} from './work-item-rules';

const FAILED_SPAWN_ENDS_OR_PARKS = 'failed-spawn-ends-or-parks';

/**
 * A work-item session's queue, status and handlers: the workflow (work-item.ts) wires its messages to these
 * methods and runs the delivery loop. Host operations (spawn, paste, close, restart) run one at a time, in the order
 * they were asked for, on the host queue the session recorded when it started.
 */
export class WorkItemSession {
  private state: WorkItemState;
  private readonly queue: DeliverableEvent[];
  private readonly seen: Set<string>;
  private iteration: number;
  private delivered = 0;
  private tmuxLost: string | null;
  private blocked: string | null = null;
  private lastControl: WorkItemControlCommand | null;
  private openReport: OpenReport | null = null;
  private openError: string | null = null;
  private closing: Promise<CloseReport> | null = null;
  /** The last host operation: the next one starts after it settles. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly host: ActivityInterfaceFor<WorkItemActivities>;
  /** One attempt, no waiting: the keyword comment. */
  private readonly bestEffort: ActivityInterfaceFor<WorkItemActivities>;
  /** --registry-dir / --portable-dir, passed to every host activity (portableDir is absent in older runs). */
  private readonly dirs: { registryDir: string | null; portableDir: string | null };

  constructor(private readonly input: WorkItemSessionInput) {
    const { carried } = input;
    this.state = carried ? carried.status : 'opening';
    this.queue = carried ? [...carried.queue] : [];
    this.seen = new Set(carried?.seen ?? []);
    this.iteration = carried?.iteration ?? 0;
    this.tmuxLost = carried?.tmuxLost ?? null;
    this.lastControl = carried?.lastControl ?? null;
    this.dirs = { registryDir: input.registryDir, portableDir: input.portableDir ?? null };
    this.host = proxyActivities<WorkItemActivities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '5 minutes',
      scheduleToStartTimeout: '7 days',
      retry: { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: ['WorkItemBadInput'] },
    });
    this.bestEffort = proxyActivities<WorkItemActivities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 1 },
    });
  }

  // --- message handlers -------------------------------------------------------------------------------------

  status(): WorkItemStatus {
    return {
      workItem: this.input.workItem,
      status: this.state,
      queued: this.queue.length,
      delivered: this.delivered,
      iteration: this.iteration,
      tmuxLost: this.tmuxLost,
      blocked: this.blocked,
      lastControl: this.lastControl,
    };
  }

  deliverEvent(event: DeliverableEvent): void {
    if (!acceptsEvent(this.state, this.seen, event)) return;
    this.seen.add(event.id);
    this.queue.push(event);
  }

  async itemClosed(request: CloseRequest): Promise<void> {
    try {
      await this.performClose(request);
    } catch {
      // reported through status; the next close or stop retries
    }
  }

  async opened(): Promise<OpenReport> {
    await condition(
      () => this.openReport !== null || this.openError !== null || this.input.carried !== undefined,
    );
    if (this.openReport) return this.openReport;
    if (this.openError) throw ApplicationFailure.nonRetryable(this.openError, 'WorkItemOpenFailed');
    throw ApplicationFailure.nonRetryable('this session continued as new; its record was written earlier');
  }

  validateClose(): void {
    const refusal = closeRefusal(this.input.workItem, this.state);
    if (refusal) throw new Error(refusal);
  }

  async close(request: CloseRequest): Promise<CloseReport> {
    try {
      return await this.performClose(request);
    } catch (error) {
      throw asUpdateFailure(error);
    }
  }

  validateControl(request: ControlRequest): void {
    const refusal = controlRefusal(this.input.workItem, request.command, this.state);
    if (refusal) throw new Error(refusal);
  }

  async control(request: ControlRequest): Promise<ControlReport> {
    await condition(() => this.state !== 'opening');
    const report = blankControlReport(this.input.workItem, request.command, this.queue.length);
    try {
      Object.assign(report, await this.applyControl(request));
    } catch (error) {
      throw asUpdateFailure(error);
    }
    report.queued = this.queue.length;
    report.comment = await this.comment(request);
    return report;
  }

  async linkPullRequest({ pullRequest }: LinkRequest): Promise<LinkReport> {
    try {
      return await this.exclusive(() =>
        this.host.workItemLinkPullRequest({ workItem: this.input.workItem, pullRequest, ...this.dirs }),
      );
    } catch (error) {
      throw asUpdateFailure(error);
    }
  }

  async restart({ dryRun }: RestartRequest): Promise<RestartReport> {
    try {
      return await this.exclusive(() =>
        this.host.workItemRestart({ workItem: this.input.workItem, dryRun, ...this.dirs }),
      );
    } catch (error) {
      throw asUpdateFailure(error);
    }
  }

  // --- the loop's steps -------------------------------------------------------------------------------------

  /** A new session: its registry record and directory. On failure the `opened` update learns why, then it fails. */
  async open(): Promise<void> {
    const { input } = this;
    try {
      const info = workflowInfo();
      const result = await this.host.workItemOpen({
        workItem: input.workItem,
        workflowId: info.workflowId,
        runId: info.runId,
        taskQueue: input.taskQueue,
        hostQueue: input.hostQueue,
        registration: input.registration,
        ...this.dirs,
      });
      this.iteration = result.lastIteration;
      this.openReport = result.report;
      this.setState('active');
    } catch (error) {
      this.openError = causeMessage(error);
      await condition(allHandlersFinished);
      throw ApplicationFailure.nonRetryable(
        `could not open ${input.workItem}: ${this.openError}`,
        'WorkItemOpenFailed',
      );
    }
  }

  /** Someone asked for a close (a close update, a stop or cleanup, or the item itself closed). */
  get closeRequested(): boolean {
    return this.closing !== null;
  }

  /** The close under way, once it ends; null when it failed (its asker was told, and the session stays up). */
  async closed(): Promise<CloseReport | null> {
    try {
      return await (this.closing as Promise<CloseReport>);
    } catch {
      return null;
    }
  }

  canDeliver(): boolean {
    return canDeliver({
      state: this.state,
      tmuxLost: this.tmuxLost,
      blocked: this.blocked,
      queued: this.queue.length,
      closing: this.closing !== null,
    });
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** Pastes the oldest queued event into the pane; a lost pane or a failed paste keeps it queued. */
  async deliverNext(): Promise<void> {
    const event = this.queue[0];
    if (!event) return;
    const n = this.iteration + 1;
    try {
      const result = await this.exclusive(() =>
        this.host.workItemDeliver({
          workItem: this.input.workItem,
          eventId: event.id,
          text: event.text,
          iteration: n,
          ...this.dirs,
        }),
      );
      if (result.outcome === 'tmux-lost') {
        this.tmuxLost = result.reason;
        return;
      }
      this.iteration = n;
      this.delivered += 1;
      this.queue.shift();
    } catch (error) {
      // The event stays queued; `start` (or resume) unblocks it.
      this.iteration = n;
      this.blocked = causeMessage(error);
      // an event's spawn that failed parks the session: paused, not "active" with no pane
      if (patched(FAILED_SPAWN_ENDS_OR_PARKS) && this.tmuxLost === null) this.setState('paused');
    }
  }

  carry(): CarriedState {
    return carriedState({
      state: this.state,
      queue: this.queue,
      iteration: this.iteration,
      seen: this.seen,
      tmuxLost: this.tmuxLost,
      lastControl: this.lastControl,
    });
  }

  // --- host operations --------------------------------------------------------------------------------------

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private setState(next: WorkItemState): void {
    this.state = next;
    upsertSearchAttributes([{ key: LoopStatus, value: next }]);
  }

  /** What a control command did, for its report. */
  private async applyControl(request: ControlRequest): Promise<Partial<ControlReport>> {
    const record = () =>
      this.host.workItemRecordControl({
        workItem: this.input.workItem,
        command: request.command,
        by: request.by,
        via: request.via,
        ...this.dirs,
      });
    switch (request.command) {
      case 'start': {
        let spawned;
        try {
          spawned = await this.exclusive(async () => {
            const result = await this.host.workItemSpawn({ workItem: this.input.workItem, ...this.dirs });
            await record();
            return result;
          });
        } catch (error) {
          if (patched(FAILED_SPAWN_ENDS_OR_PARKS)) await this.afterFailedSpawn(causeMessage(error));
          throw error;
        }
        this.tmuxLost = null;
        this.blocked = null;
        this.lastControl = 'start';
        this.setState('active');
        const { target, socket, spawned: fresh, resumed } = spawned;
        return { target, socket, spawned: fresh, resumed };
      }
      case 'pause':
      case 'resume':
        await this.exclusive(record);
        this.lastControl = request.command;
        if (request.command === 'resume') this.blocked = null;
        this.setState(request.command === 'pause' ? 'paused' : 'active');
        return {};
      case 'stop':
        await this.exclusive(record);
        this.lastControl = 'stop';
        return { lines: (await this.performClose({ keepTmux: null, reason: 'stop' })).lines };
      case 'cleanup':
        await this.exclusive(record);
        this.lastControl = 'cleanup';
        return { lines: (await this.performClose({ keepTmux: false, reason: 'cleanup' }, 'cleanup')).lines };
    }
  }

  /**
   * A spawn that failed leaves no zombie: with nothing queued the session ends (its record closed), else it parks,
   * paused with the reason, its events kept for the next start.
   */
  private async afterFailedSpawn(reason: string): Promise<void> {
    if (afterFailedSpawn(this.queue.length) === 'park') {
      this.blocked = reason;
      this.setState('paused');
      return;
    }
    try {
      await this.performClose({ keepTmux: false, reason: `spawn failed: ${reason}` });
    } catch {
      // the close failure is in the session's status; the start's own failure is what its caller hears
    }
  }

  /** One close at a time: a second request joins the first; a failed one can be asked for again. */
  private performClose(request: CloseRequest, kind: 'close' | 'cleanup' = 'close'): Promise<CloseReport> {
    if (this.closing) return this.closing;
    this.setState('closing');
    const { workItem } = this.input;
    const attempt = this.exclusive(async () => {
      const report =
        kind === 'cleanup'
          ? await this.host.workItemCleanup({ workItem, ...this.dirs })
          : await this.host.workItemClose({
              workItem,
              keepTmux: request.keepTmux,
              reason: request.reason,
              ...this.dirs,
            });
      this.setState('closed');
      return report;
    });
    this.closing = attempt;
    attempt.catch(() => {
      if (this.closing !== attempt) return;
      this.closing = null;
      this.setState(stateAfterFailedClose(this.lastControl));
    });
    return attempt;
  }

  /** The keyword comment, best effort: a failure is a warning in the report, never a failed control. */
  private async comment(request: ControlRequest): Promise<CommentOutcome | null> {
    if (!request.comment) return null;
    try {
      return await this.bestEffort.workItemComment({
        workItem: this.input.workItem,
        command: request.command,
        ...this.dirs,
      });
    } catch (error) {
      return { posted: false, warning: `could not comment: ${causeMessage(error)}`, url: null };
    }
  }
}
