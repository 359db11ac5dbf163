import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  rootCause,
  setCurrentDetails,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { pickRoutine, type Routine } from '../session/routine-schedule';
import { createChildCoordinator, type ChildCoordinator } from './children';
import { clone } from './clone';
import {
  bookTurn,
  conversationFor,
  iterationRequest,
  newSessionState,
  turnSummary,
  type EndedTurn,
} from './goal-session-bookkeeping';
import { faultStop } from './goal-session-faults';
import { SessionJournal } from './goal-session-journal';
import type { StopRequest, UserUpdate } from './goal-session-messages';
import { limitReached, remainingBudgetUsd, type Stop } from './goal-session-limits';
import type { goalSession } from './goal-session';
import type {
  Flush,
  GoalSessionCarry,
  GoalSessionInput,
  GoalSessionResult,
  IterationOutcome,
  SessionStateFile,
} from './goal-session-types';
import {
  NOTHING_PUBLISHED,
  searchAttributesDue,
  type PublishedAttributes,
} from './search-attribute-throttle';
import { goalSessionAttributes } from './search-attributes';

const now = () => new Date().toISOString();

/**
 * How many history entries a continue-as-new carries into the next run (its input is one payload, 2 MB at most):
 * state.json keeps every entry, and `loopy status` merges the two.
 */
const CARRIED_HISTORY = 200;

/** A stop request as the session took it: who, and why. */
interface AcceptedStop {
  reason: string;
  by: string;
}

interface Turn {
  iteration: number;
  routine: Routine;
  harness: string;
  conversation: { id: string; resume: boolean } | null;
}

/**
 * A goal session's state and the handlers that change it: the workflow (goal-session.ts) wires its messages to
 * these methods and runs the loop. The state is the workflow's; activities project it into the session directory.
 */
export class GoalSession {
  private readonly state: SessionStateFile;
  private readonly children: ChildCoordinator;
  private stopRequest: AcceptedStop | null = null;
  /** The session's clock for max duration: restarted once the session directory exists. */
  private startedMs: number;
  private readonly journal: SessionJournal;
  private readonly conversations: Map<string, string>;
  private previousRoutine: string | null;
  /** A fault of the session's files that stops the session (goal-session-faults.ts); null while there is none. */
  fault: Stop | null = null;
  private iterationScope: CancellationScope | null = null;
  private published: PublishedAttributes = NOTHING_PUBLISHED;
  /** Short file writes: projections, init, salvage, finish. */
  private readonly files: ActivityInterfaceFor<Activities>;
  /** The harness turn: as long as the iteration timeout, and waits for its cancellation to complete. */
  private readonly iterations: ActivityInterfaceFor<Activities>;

  constructor(
    private readonly input: GoalSessionInput,
    carry?: GoalSessionCarry,
  ) {
    const startedAt = carry?.state.started_at ?? now();
    this.state = carry ? clone(carry.state) : newSessionState(input.sessionId, startedAt);
    this.journal = new SessionJournal(
      input.sessionId,
      input.sessionDir,
      carry,
      patched('journal-resends-unwritten-events'),
    );
    this.startedMs = carry?.startedMs ?? Date.now();
    this.conversations = new Map(carry?.conversations ?? []);
    this.previousRoutine = carry?.previousRoutine ?? null;
    const retry = { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] };
    this.files = proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '2 minutes',
      // These activities are short file writes: a worker that dies holding one is noticed as fast as a harness turn.
      heartbeatTimeout: input.heartbeatTimeoutMs,
      retry,
    });
    this.iterations = proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: input.iterationTimeoutMs + 60_000,
      heartbeatTimeout: input.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry,
    });
    // Child sessions (children.ts): dispatched after a turn; pause, resume and stop reach them.
    this.children = createChildCoordinator({
      input,
      state: this.state,
      emit: (type, extra) => this.journal.emit(type, extra),
      project: (send) => this.project(send),
      publish: () => this.publish(),
      stopRequest: () => this.stopRequest,
      startedMs: Date.parse(startedAt),
      records: carry?.children,
    });
  }

  // --- message handlers -------------------------------------------------------------------------------------

  status(): SessionStateFile {
    return { ...this.state, updated_at: now() };
  }

  pause(): void {
    if (this.state.dispatch.paused || this.stopRequest) return;
    this.state.dispatch.paused = true;
    this.journal.emit('session_paused');
    this.children.forward('pause');
  }

  resume(): void {
    if (!this.state.dispatch.paused) return;
    this.state.dispatch.paused = false;
    this.journal.emit('session_resumed');
    this.children.forward('resume');
  }

  stop({ reason, by }: StopRequest): void {
    if (this.stopRequest) return;
    this.requestStop({ reason: reason?.trim() || 'stopped by the user', by: by ?? 'user' });
    this.iterationScope?.cancel();
    this.children.forward('stop');
  }

  userUpdate({ bytes }: UserUpdate): void {
    this.journal.emit('user_update', { data: { bytes } });
  }

  // --- the loop's steps -------------------------------------------------------------------------------------

  /** A new session: its directory, its first events and attributes. */
  async open(): Promise<void> {
    this.state.status = 'running';
    this.journal.emit('session_started', {
      data: {
        goal_hash: this.input.goalHash,
        harness: this.input.harness,
        workflow_run_id: workflowInfo().runId,
      },
    });
    this.publish();
    await this.project((flush) => this.files.initSession({ input: this.input, flush }));
    this.startedMs = Date.now();
  }

  /** The stop someone asked for (a user, the parent, or Temporal's cancellation); null to go on. */
  requestedStop(): Stop | null {
    this.noteTemporalCancellation();
    if (!this.stopRequest) return null;
    return { kind: this.stopRequest.by === 'parent' ? 'parent' : 'user', reason: this.stopRequest.reason };
  }

  get paused(): boolean {
    return this.state.dispatch.paused;
  }

  async waitWhilePaused(): Promise<void> {
    this.state.status = 'paused';
    setCurrentDetails(`paused after iteration ${this.state.iteration}`);
    this.publish();
    await this.unlessCancelled(async () => {
      await this.project((flush) => this.files.flush(flush));
      await condition(() => !this.state.dispatch.paused || this.stopRequest !== null);
    });
    this.state.status = 'running';
    this.publish();
  }

  limitReached(): Stop | null {
    return limitReached(this.input.limits, {
      iteration: this.state.iteration,
      spentUsd: this.state.usage.total.cost_usd,
      elapsedMs: Date.now() - this.startedMs,
      consecutiveFailures: this.state.consecutive_failures,
    });
  }

  /** Writes what is pending and continues as new, unless a signal that arrived during that write comes first. */
  async continueAsNew(): Promise<void> {
    await this.unlessCancelled(() => this.project((flush) => this.files.flush(flush)));
    if (this.stopRequest || this.state.dispatch.paused || CancellationScope.current().consideredCancelled)
      return;
    await continueAsNew<typeof goalSession>(this.input, {
      state: { ...clone(this.state), history: this.state.history.slice(-CARRIED_HISTORY) },
      ...this.journal.carry(),
      startedMs: this.startedMs,
      conversations: [...this.conversations],
      previousRoutine: this.previousRoutine,
      children: this.children.records(),
    });
  }

  /** One turn of the harness, recorded: its outcome, or null when it failed, was cancelled or was salvaged. */
  async runTurn(): Promise<IterationOutcome | null> {
    const turn = this.beginTurn();
    const dispatchedAt = now();
    let outcome: IterationOutcome | null = null;
    let failure: string | null = null;
    try {
      outcome = await this.dispatch(turn);
    } catch (error) {
      failure = await this.failureOf(turn, error);
      const fault = faultStop(error);
      if (fault && patched('file-fault-stops')) this.fault = fault;
    } finally {
      this.iterationScope = null;
    }
    this.recordTurn({
      iteration: turn.iteration,
      routine: turn.routine,
      dispatchedAt,
      recordedAt: now(),
      outcome,
      failure,
    });
    return outcome;
  }

  /** Child sessions the turn asked for, one at a time; a cancellation ends the wait and the loop stops. */
  dispatchChildren(outcome: IterationOutcome | null): Promise<void> {
    return this.unlessCancelled(() => this.children.dispatch(outcome?.childRequests));
  }

  async finish(stop: Stop): Promise<GoalSessionResult> {
    const { state } = this;
    state.status = 'stopped';
    state.stop = { kind: stop.kind, reason: stop.reason, requested_by: state.stop.requested_by, at: now() };
    this.journal.emit('session_stopped', {
      data: {
        kind: stop.kind,
        reason: stop.reason,
        iterations: state.iteration,
        cost_usd: state.usage.total.cost_usd,
      },
    });
    setCurrentDetails(`stopped: ${stop.reason}`);
    this.publish();
    // The final projection must land even when the session was stopped: run it outside the cancelled scope. Where
    // the files cannot be written, the stop reason lives on in the workflow's result and status.
    await CancellationScope.nonCancellable(() =>
      this.files.finishSession({ flush: this.drain(), stop }),
    ).catch((error: unknown) => {
      if (!faultStop(error)) throw error;
    });
    return { sessionId: this.input.sessionId, stop, iterations: state.iteration, usage: state.usage.total };
  }

  // --- inside a turn ----------------------------------------------------------------------------------------

  private beginTurn(): Turn {
    const { input, state } = this;
    const n = state.iteration + 1;
    const routine = pickRoutine(input.routines, n, this.previousRoutine);
    const harness = routine.harness ?? input.harness;
    state.iteration = n;
    state.dispatch.active_iteration = { number: n, routine_id: routine.id, started_at: now() };
    this.journal.emit('iteration_started', { iteration: n, routine_id: routine.id, data: { harness } });
    setCurrentDetails(`iteration ${n} · ${routine.id} · ${harness}`);
    const due = searchAttributesDue(this.published, state.status, Date.now());
    if (due || !patched('search-attributes-once-a-second')) this.publish();
    const conversation = conversationFor(routine, this.conversations.get(routine.id), uuid4);
    return { iteration: n, routine, harness, conversation };
  }

  private dispatch(turn: Turn): Promise<IterationOutcome> {
    const remaining = remainingBudgetUsd(this.input.limits, this.state.usage.total.cost_usd);
    const summary = turnSummary(turn.iteration, turn.routine.id, turn.harness);
    this.iterationScope = new CancellationScope();
    // The SDK deep-merges these options over the proxy's: only the summary differs from turn to turn.
    return this.iterationScope.run(() =>
      this.project((flush) =>
        this.iterations.runIteration.executeWithOptions({ summary }, [
          iterationRequest(this.input, turn, flush, remaining),
        ]),
      ),
    );
  }

  /**
   * Why a turn has no outcome. A cancelled turn whose worker is gone ends in a heartbeat timeout, not a
   * cancellation; and a turn that failed for good (e.g. a bad harness name) is a failed iteration, not a failed
   * session. A stop can catch a turn whose worker is gone: its cancellation times out, or cancels a retry that never
   * started while the first attempt's harness may still run. Either way the turn is salvaged, not forgotten.
   */
  private async failureOf(turn: Turn, error: unknown): Promise<string> {
    if (isCancellation(error)) this.noteTemporalCancellation();
    if (this.stopRequest && patched('salvage-turn-lost-at-stop')) {
      const salvaged = await CancellationScope.nonCancellable(() =>
        this.files.salvageStoppedIteration({
          sessionDir: this.input.sessionDir,
          iteration: turn.iteration,
          routineId: turn.routine.id,
        }),
      );
      return salvaged.error;
    }
    if (isCancellation(error) || this.stopRequest) return 'stopped: the iteration was cancelled';
    return `the iteration failed: ${rootCause(error) ?? String(error)}`;
  }

  private recordTurn(turn: EndedTurn): void {
    const { state } = this;
    const book = bookTurn(state, turn);
    state.usage.own = book.usage.own;
    state.usage.total = book.usage.total;
    state.history.push(book.entry);
    state.consecutive_failures = book.consecutiveFailures;
    state.dispatch.active_iteration = null;
    if (book.conversationId) this.conversations.set(turn.routine.id, book.conversationId);
    this.previousRoutine = turn.routine.id;
    if (turn.outcome) this.journal.acknowledge(turn.iteration, turn.routine.id);
    this.journal.emit(book.event.type, {
      iteration: turn.iteration,
      routine_id: turn.routine.id,
      data: book.event.data,
    });
    // The next turn's upsert, in this same workflow task, carries the new cost; publish now only when something
    // may wait before it (a child session) — one upsert per turn instead of two.
    if (!patched('one-upsert-per-turn') || (turn.outcome?.childRequests?.length ?? 0) > 0) this.publish();
  }

  // --- events, projections, attributes ----------------------------------------------------------------------

  /** The next projection: state.json and what the journal holds. */
  private drain(): Flush {
    return this.journal.drain(this.state);
  }

  /** Sends the next projection with an activity; what it carried is owed again unless the activity completes. */
  private async project<T>(send: (flush: Flush) => Promise<T>): Promise<T> {
    const flush = this.drain();
    const result = await send(flush);
    this.journal.written(flush);
    return result;
  }

  private publish(): void {
    const { input, state } = this;
    this.published = { atMs: Date.now(), status: state.status };
    upsertSearchAttributes(goalSessionAttributes(input, state));
  }

  // --- stops ------------------------------------------------------------------------------------------------

  private requestStop(request: AcceptedStop): void {
    this.stopRequest = request;
    this.state.stop.requested_by = request.by;
    this.journal.emit('stop_requested', { data: { reason: request.reason, by: request.by } });
  }

  /**
   * A cancellation request from Temporal itself (the Web UI's Cancel, `temporal workflow cancel`) is a user's stop
   * by another door: noted as one, so that the session ends the same way — its turn salvaged, its final state
   * written — instead of failing every turn it would still try to start.
   */
  private noteTemporalCancellation(): void {
    if (this.stopRequest || !CancellationScope.current().consideredCancelled) return;
    this.requestStop({
      reason: 'cancelled through Temporal (a workflow cancellation request)',
      by: 'temporal',
    });
    this.children.forward('stop');
  }

  /** Awaits a step that a cancellation may interrupt; the loop then stops through noteTemporalCancellation. */
  private async unlessCancelled(step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (!isCancellation(error) || !CancellationScope.current().consideredCancelled) throw error;
    }
  }
}
