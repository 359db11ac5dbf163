import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { LoopCostUsd, LoopStatus, LoopWaiting } from '../search-attributes';
import {
  closeOnHost,
  hostActivities,
  hostVerbOnHost,
  keywordComment,
  openOnHost,
  recordControlOnHost,
  type CloseKind,
} from './activities';
import {
  AUTHORIZED_CLOSURE,
  BUDGET_WAITS,
  CONTROL_BESIDE_TURN,
  COST_ATTRIBUTE,
  FAILED_SPAWN_ENDS_OR_PARKS,
  KICKOFF_FIRST,
  START_HOLDS_DELIVERY,
  TURNS,
  WAITING_RECORDED,
} from './patches';
import { WorkItemProcess } from './process';
import { EventQueue } from './queue';
import { asUpdateFailure, causeMessage } from '../update-failure';
import type {
  CarriedState,
  CloseReport,
  CloseRequest,
  ControlReport,
  ControlRequest,
  DeliverableEvent,
  OpenReport,
  PaneWaiting,
  PaneWaitReason,
  PermissionAnswer,
  PermissionAnswerReport,
  SessionWaiting,
  WorkItemControlCommand,
  WorkItemSessionInput,
  WorkItemStatus,
} from './messages';
import {
  afterFailedSpawn,
  blankControlReport,
  canDeliver,
  carriedState,
  closeRefusal,
  controlRefusal,
  kickoffEvent,
  permissionAnswerRefusal,
  shownStatus,
  stateAfterFailedClose,
  type WorkItemState,
} from './rules';
import { continuedWaiting, waitingOf } from './waiting';

/**
 * A work-item session's queue, status and handlers: the workflow (work-item/workflow.ts) wires its messages to these
 * methods and runs the delivery loop. Host operations (spawn, paste, close, restart) run one at a time, in the order
 * they were asked for, on the host queue the session recorded when it started.
 */
export class WorkItemSession {
  private state: WorkItemState;
  private readonly queue: EventQueue;
  private iteration: number;
  private delivered = 0;
  private tmuxLost: string | null;
  private blocked: string | null = null;
  /** A dialog in the pane waits for a human (the host worker signals it): nothing is pasted meanwhile. */
  private waiting: string | null = null;
  private paneWaitReason: PaneWaitReason;
  /** False while the pane waits for an answer at its input box (a question in the reply): the next event answers. */
  private paneHoldsDelivery: boolean;
  /** The wait for a person as last recorded (work-item/waiting.ts), with since when. */
  private waitingFor: SessionWaiting | null;
  /** A budget reached (what was spent of what): no turn until a raise, which the next delivery checks again. */
  private budget: string | null;
  /** The event whose turn is under way or was cut short by a close: it reached the pane, so a close drops it not. */
  private pasted: string | null = null;
  /** The turn under way (runs that deliver turns): a close cancels it instead of waiting for it to end. */
  private turnScope: CancellationScope | null = null;
  private lastControl: WorkItemControlCommand | null;
  private openReport: OpenReport | null = null;
  private openError: string | null = null;
  private closing: Promise<CloseReport> | null = null;
  /** A start is under way: nothing is delivered until its own turn is queued ahead of what came meanwhile. */
  private starting = false;
  /** The last host operation: the next one starts after it settles. */
  private tail: Promise<unknown> = Promise.resolve();
  /** host (most operations), turnHost (a delivered event's turn), bestEffort (the keyword comment). */
  private readonly activities: ReturnType<typeof hostActivities>;
  /** The work item's pointer into its process graph (work-item/process.ts). */
  readonly process: WorkItemProcess;

  constructor(private readonly input: WorkItemSessionInput) {
    const { carried } = input;
    this.state = carried ? carried.status : 'opening';
    this.queue = new EventQueue(carried);
    this.iteration = carried?.iteration ?? 0;
    this.tmuxLost = carried?.tmuxLost ?? null;
    this.lastControl = carried?.lastControl ?? null;
    this.waiting = carried?.waiting ?? null;
    this.paneWaitReason = carried?.paneWaitReason ?? 'permission';
    this.paneHoldsDelivery = carried?.paneHoldsDelivery ?? true;
    this.waitingFor = carried?.waitingFor ?? null;
    this.budget = carried?.budget ?? null;
    this.activities = hostActivities(input.hostQueue);
    const { host } = this.activities;
    this.process = new WorkItemProcess(input.workItem, input.graph, carried?.process, host, {
      // a node's turn goes ahead of the events queued meanwhile (runs before the marker: at the end)
      enqueue: (event) => this.queue.add(this.state, event, patched(KICKOFF_FIRST)),
      exclusive: (fn) => this.exclusive(fn),
      turnUnderWay: () => this.turnScope !== null,
    });
  }

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
      waiting: this.waiting,
      node: this.process.node,
      waitingAt: this.process.waitingAt,
      waitingFor: this.waitingFor,
    };
  }

  paneWaiting({ message, reason, holdsDelivery }: PaneWaiting): void {
    this.waiting = message;
    this.paneWaitReason = reason ?? 'permission';
    this.paneHoldsDelivery = holdsDelivery ?? true;
    this.showWaiting();
  }

  /** A budget was raised: the next delivery checks the budgets again, and goes on or waits anew. */
  budgetRaised(): void {
    this.budget = null;
  }

  validatePermissionAnswer(answer: PermissionAnswer): void {
    const { state, waiting, paneWaitReason } = this;
    const refusal = permissionAnswerRefusal(this.input.workItem, { state, waiting, paneWaitReason }, answer);
    if (refusal) throw new Error(refusal);
  }

  /**
   * A person's answer to the pane's permission prompt, handed to the hook that holds it (on the host, beside the turn
   * the prompt holds up). Refused when the prompt was answered in the terminal meanwhile: the first answer wins.
   */
  async answerPermission(answer: PermissionAnswer): Promise<PermissionAnswerReport> {
    const { workItem } = this.input;
    const asked = this.waiting ?? '';
    try {
      await this.activities.host.workItemAnswerPermission({ workItem, answer });
    } catch (error) {
      throw asUpdateFailure(error);
    }
    if (this.waiting === asked) this.paneWaiting({ message: null });
    return { workItem, decision: answer.decision, asked, by: answer.by };
  }

  /**
   * Keeps the wait for a person recorded as it changes: its reason in the LoopWaiting search attribute, and the wait
   * in the registry record, which `sessions list`, `sessions show` and `inbox` read. Runs beside everything else.
   */
  async recordWaits(): Promise<void> {
    if (!patched(WAITING_RECORDED)) return;
    const next = () => continuedWaiting(this.waitingFor, this.waitNow(), new Date().toISOString());
    for (;;) {
      await condition(() => next() !== this.waitingFor);
      const waiting = next();
      this.waitingFor = waiting;
      upsertSearchAttributes([{ key: LoopWaiting, value: waiting === null ? null : waiting.reason }]);
      const { workItem } = this.input;
      // best effort: the workflow's own state (status query, search attribute) holds the wait either way
      await this.activities.host.workItemRecordWaiting({ workItem, waiting }).catch(() => undefined);
    }
  }

  private waitNow() {
    const pane = this.waiting === null ? null : { message: this.waiting, reason: this.paneWaitReason };
    const { state, tmuxLost, blocked, budget } = this;
    return waitingOf({ state, pane, gate: this.process.gate, tmuxLost, blocked, budget });
  }

  deliverEvent(event: DeliverableEvent): void {
    this.queue.add(this.state, event);
  }

  async itemClosed(request: CloseRequest): Promise<void> {
    // an authorized closure: cleanup's graph transition, disarmed; the host releases per cleanupOnClose
    const closure = request.authorized === true && patched(AUTHORIZED_CLOSURE);
    if (closure) await this.process.enterCleanup();
    // a failure is reported through status; the next close or stop retries
    await this.performClose(request, closure ? 'closure' : 'close').catch(() => undefined);
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
    // taken before the session opens (a start comes with the workflow's start): no event can go ahead of it
    const holds = request.command === 'start' && patched(START_HOLDS_DELIVERY);
    if (holds) this.starting = true;
    await condition(() => this.state !== 'opening');
    const report = blankControlReport(this.input.workItem, request.command, this.queue.length);
    try {
      Object.assign(report, await this.applyControl(request));
    } catch (error) {
      throw asUpdateFailure(error);
    } finally {
      if (holds) this.starting = false;
    }
    report.queued = this.queue.length;
    report.comment = await keywordComment(this.activities.bestEffort, this.input.workItem, request);
    return report;
  }

  /**
   * An update that is one host operation (link-pr, restart, …): its host side (src/work-item/host/<verb>.ts) gets
   * the request and the work item, in line with the other host operations, and its failure is the update's. Such
   * a verb is its message, its handler in work-item/workflow.ts and its host file listed in host/verbs.ts; it needs
   * no method here.
   */
  onHost<Req, Res>(update: UpdateDefinition<Res, [Req]>, request: Req): Promise<Res> {
    const { host } = this.activities;
    return this.hostUpdate(() => hostVerbOnHost(host, update, this.input.workItem, request));
  }

  /** A host operation an update asked for, in line with the others; its failure is the update's. */
  private async hostUpdate<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.exclusive(fn);
    } catch (error) {
      throw asUpdateFailure(error);
    }
  }

  /** A new session: its registry record and directory. On failure the `opened` update learns why, then it fails. */
  async open(): Promise<void> {
    const { input } = this;
    try {
      const result = await openOnHost(this.activities.host, input);
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
    const { state, tmuxLost, blocked, starting, budget } = this;
    const waiting = this.paneHoldsDelivery ? this.waiting : null;
    const closing = this.closing !== null;
    const queued = this.queue.length;
    return canDeliver({ state, tmuxLost, blocked, waiting, closing, starting, budget, queued });
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** Delivers the oldest queued event as a turn; a lost pane, a waiting dialog or a failed paste keeps it queued. */
  async deliverNext(): Promise<void> {
    const head = this.queue.head;
    if (!head) return;
    let event = head;
    const n = this.iteration + 1;
    const turns = patched(TURNS);
    const scope = new CancellationScope();
    if (turns) this.turnScope = scope;
    try {
      const result = await this.exclusive(() => {
        // taken when its turn comes: a start's kickoff, queued while the spawn ran, goes first
        if (turns) event = this.queue.head ?? head;
        this.pasted = event.id;
        const { workItem } = this.input;
        const request = { workItem, eventId: event.id, text: event.text, iteration: n };
        return turns
          ? scope.run(() => this.activities.turnHost.workItemDeliver(request))
          : this.activities.host.workItemDeliver(request);
      });
      if (result.outcome === 'tmux-lost' || result.outcome === 'held' || result.outcome === 'budget') {
        this.pasted = null;
      }
      if (result.outcome === 'budget') {
        if (patched(BUDGET_WAITS)) this.budget = result.reason;
        return;
      }
      if (result.outcome === 'tmux-lost') {
        this.tmuxLost = result.reason;
        return;
      }
      if (result.outcome === 'held') {
        this.paneWaiting({ message: result.reason });
        return;
      }
      this.pasted = null;
      this.iteration = n;
      this.delivered += 1;
      this.queue.remove(event);
      if (result.outcome === 'delivered') this.afterTurn(result);
    } catch (error) {
      if (isCancellation(error)) return; // a close ended the turn; the session is closing
      this.pasted = null;
      // The event stays queued; `start` (or resume) unblocks it.
      this.iteration = n;
      this.blocked = causeMessage(error);
      // an event's spawn that failed parks the session: paused, not "active" with no pane
      const spawnFailed = (error as { cause?: { type?: string } }).cause?.type === 'WorkItemSpawnFailed';
      if (spawnFailed && patched(FAILED_SPAWN_ENDS_OR_PARKS)) this.setState('paused');
    } finally {
      this.turnScope = null;
    }
  }

  /** What a turn that reported its usage leaves: the work item's cost, and a budget its turn crossed. */
  private afterTurn({ spentUsd, budget }: { spentUsd?: number; budget?: string }): void {
    if (spentUsd !== undefined && patched(COST_ATTRIBUTE)) {
      upsertSearchAttributes([{ key: LoopCostUsd, value: spentUsd }]);
    }
    // the turn that crossed a budget has finished: the next waits
    if (budget && patched(BUDGET_WAITS)) this.budget = budget;
  }

  carry(): CarriedState {
    return carriedState({
      process: this.process.carry(),
      state: this.state,
      queue: this.queue.events,
      iteration: this.iteration,
      seen: this.queue.seen,
      tmuxLost: this.tmuxLost,
      lastControl: this.lastControl,
      waiting: this.waiting,
      paneWaitReason: this.paneWaitReason,
      paneHoldsDelivery: this.paneHoldsDelivery,
      waitingFor: this.waitingFor,
      budget: this.budget,
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private setState(next: WorkItemState): void {
    this.state = next;
    this.showWaiting();
  }

  private showWaiting(): void {
    upsertSearchAttributes([{ key: LoopStatus, value: shownStatus(this.state, this.waiting) }]);
  }

  /** What a control command did, for its report. */
  private async applyControl(request: ControlRequest): Promise<Partial<ControlReport>> {
    const beside = patched(CONTROL_BESIDE_TURN);
    const record = () => recordControlOnHost(this.activities.host, this.input.workItem, request);
    const recorded = () => (beside ? record() : this.exclusive(record));
    switch (request.command) {
      case 'start': {
        if (this.process.startWaits) {
          const waiting = await this.process.begin();
          await this.exclusive(record);
          this.lastControl = 'start';
          this.setState('active');
          return { lines: waiting !== null ? [waiting] : [] };
        }
        const { workItem } = this.input;
        const spawned = await this.exclusive(async () => {
          const result = await this.activities.host.workItemSpawn({ workItem });
          await record();
          return result;
        }).catch(async (error: unknown) => {
          if (patched(FAILED_SPAWN_ENDS_OR_PARKS)) await this.afterFailedSpawn(causeMessage(error));
          throw error;
        });
        this.tmuxLost = null;
        this.blocked = null;
        this.lastControl = 'start';
        this.queueKickoff(spawned);
        this.setState('active');
        const waiting = await this.process.begin();
        const { target, socket, spawned: fresh, resumed } = spawned;
        return { target, socket, spawned: fresh, resumed, lines: waiting !== null ? [waiting] : [] };
      }
      case 'pause':
      case 'resume':
        await recorded();
        this.lastControl = request.command;
        if (request.command === 'resume') this.blocked = null;
        this.setState(request.command === 'pause' ? 'paused' : 'active');
        return {};
      case 'stop':
        if (beside) this.turnScope?.cancel();
        await recorded();
        this.lastControl = 'stop';
        return { lines: (await this.performClose({ keepTmux: null, reason: 'stop' })).lines };
      case 'cleanup':
        if (beside) this.turnScope?.cancel();
        await recorded();
        this.lastControl = 'cleanup';
        await this.process.enterCleanup();
        return { lines: (await this.performClose({ keepTmux: false, reason: 'cleanup' }, 'cleanup')).lines };
    }
  }

  /** A failed spawn leaves no zombie: nothing queued ends the session, else it parks (paused) for the next start. */
  private async afterFailedSpawn(reason: string): Promise<void> {
    if (afterFailedSpawn(this.queue.length) === 'park') {
      this.blocked = reason;
      return this.setState('paused');
    }
    // a failed close is in the session's status; the start's own failure is what its caller hears
    await this.performClose({ keepTmux: false, reason: `spawn failed: ${reason}` }).catch(() => undefined);
  }

  /** Without a process graph, a claude spawned on a new conversation gets `/the-loop:work-on` as its first turn. */
  private queueKickoff({ spawned, resumed }: { spawned: boolean; resumed: boolean }): void {
    const view = { spawned, resumed, iteration: this.iteration, seen: this.queue.seen };
    const harness = this.openReport?.harness ?? null;
    const kickoff = kickoffEvent(this.input.workItem, { ...view, harness, graph: this.process.hasGraph });
    if (kickoff && patched(KICKOFF_FIRST)) this.queue.add(this.state, kickoff, true);
  }

  /** One close at a time: a second request joins the first; a failed one can be asked for again. */
  private performClose(request: CloseRequest, kind: CloseKind = 'close'): Promise<CloseReport> {
    if (this.closing) return this.closing;
    this.turnScope?.cancel();
    this.setState('closing');
    const { workItem } = this.input;
    const attempt = this.exclusive(async () => {
      // what is still queued (the event of a turn this close cut short was pasted): no turn will take it
      const dropped = this.queue.events
        .filter((event) => event.id !== this.pasted)
        .map(({ id, text, source }) => ({ id, text, source }));
      const report = await closeOnHost(this.activities.host, kind, { workItem, request, dropped });
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
}
