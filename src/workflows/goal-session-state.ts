import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  rootCause,
  uuid4,
  workflowInfo,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { pickRoutine } from '../session/routine-schedule';
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
import { goalSessionActivities } from './goal-session-activities';
import { ControlProjection } from './goal-session-control-projection';
import { SessionDisplay } from './goal-session-display';
import { faultStop } from './goal-session-faults';
import { projectionFound, SessionJournal } from './goal-session-journal';
import type { MoveRequest, MoveResult, StopRequest, UserUpdate } from './goal-session-messages';
import { adoptOnHost } from './goal-session-move';
import { hostIdOf } from './host-queue';
import { limitReached, remainingBudgetUsd, type Stop } from './goal-session-limits';
import type { goalSession } from './goal-session';
import type {
  AcceptedStop,
  Flush,
  GoalSessionCarry,
  GoalSessionInput,
  GoalSessionResult,
  IterationOutcome,
  IterationRequest,
  SessionStateFile,
  Turn,
} from './goal-session-types';
import { SlotWait } from './goal-session-slot';
import { unlessCancelled } from './unless-cancelled';

const now = () => new Date().toISOString();

/**
 * How many history entries a continue-as-new carries into the next run (its input is one payload, 2 MB at most):
 * state.json keeps every entry, and `loopy status` merges the two.
 */
const CARRIED_HISTORY = 200;

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
  /** The running turn's activity input, for the salvage of a turn that a stop left without an outcome. */
  private dispatched: IterationRequest | null = null;
  private readonly display: SessionDisplay;
  /** The step waiting for a worker's activity slot, shown as `queued` when it waits long (goal-session-slot.ts). */
  private readonly slots: SlotWait;
  private readonly controlProjection: ControlProjection;
  /** Short file writes: projections, init, salvage, finish (on the session's host: replaced when it moves). */
  private files: ActivityInterfaceFor<Activities>;
  /** The harness turn: as long as the iteration timeout, and waits for its cancellation to complete. */
  private iterations: ActivityInterfaceFor<Activities>;
  /** A move is under way (one at a time); the running turn was cancelled by one (it is settled on the new host). */
  private moving = false;
  private turnMoved = false;

  constructor(
    private readonly input: GoalSessionInput,
    carry?: GoalSessionCarry,
  ) {
    const startedAt = carry?.state.started_at ?? now();
    this.state = carry ? clone(carry.state) : newSessionState(input.sessionId, startedAt);
    this.journal = new SessionJournal(input.sessionId, input.sessionDir, carry, {
      resendUnconfirmed: patched('journal-resends-unwritten-events'),
      repairProjection: patched('projection-repair'),
    });
    this.startedMs = carry?.startedMs ?? Date.now();
    this.conversations = new Map(carry?.conversations ?? []);
    this.previousRoutine = carry?.previousRoutine ?? null;
    this.display = new SessionDisplay(input, this.state);
    this.slots = new SlotWait({
      queued: (step) => this.display.queued(step),
      running: () => {
        this.display.running();
        this.controlProjection.unqueued();
      },
    });
    this.controlProjection = new ControlProjection(this.state, carry !== undefined, {
      snapshot: () => this.journal.snapshot(this.state),
      write: (flush) => this.files.flush(flush),
      stopTurn: (iteration) => this.files.stopRunningTurn({ sessionDir: input.sessionDir, iteration }),
    });
    ({ files: this.files, iterations: this.iterations } = goalSessionActivities(input));
    // Child sessions (children.ts): dispatched after a turn; pause, resume and stop reach them.
    this.children = createChildCoordinator({
      input,
      state: this.state,
      emit: (type, extra) => this.journal.emit(type, extra),
      project: (send) => this.project(send),
      publish: () => this.display.publish(),
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
    this.controlProjection.now();
  }

  resume(): void {
    if (!this.state.dispatch.paused) return;
    this.state.dispatch.paused = false;
    this.journal.emit('session_resumed');
    this.children.forward('resume');
    this.controlProjection.now();
  }

  stop({ reason, by }: StopRequest): void {
    if (this.stopRequest) return;
    this.requestStop({ reason: reason?.trim() || 'stopped by the user', by: by ?? 'user' });
    this.iterationScope?.cancel();
    this.children.forward('stop');
    this.controlProjection.stopped();
  }

  /** `loopy move`: the session runs on another host from now on; a turn running on the old one is settled there. */
  async move({ hostId, by }: MoveRequest): Promise<MoveResult> {
    const from = hostIdOf(this.input.taskQueue, this.input.hostQueue);
    const refused = (reason: string): MoveResult => ({ moved: false, hostId: from, reason });
    if (this.stopRequest) return refused('the session is stopping');
    if (this.moving) return refused('another move of this session is under way');
    if (hostId === from) return refused(`the session already runs on host ${from}`);
    this.moving = true;
    try {
      const adopted = await adoptOnHost(this.input, hostId);
      if ('refused' in adopted) {
        this.journal.emit('move_refused', { data: { host_id: hostId, reason: adopted.refused, by } });
        return refused(adopted.refused);
      }
      this.input.hostQueue = adopted.hostQueue; // carried by continue-as-new and given to child sessions
      ({ files: this.files, iterations: this.iterations } = goalSessionActivities(this.input));
      this.journal.emit('session_moved', { data: { from_host_id: from, host_id: hostId, by } });
      this.display.publish();
      if (this.iterationScope) {
        this.turnMoved = true;
        this.iterationScope.cancel();
      }
      return { moved: true, hostId, reason: null };
    } finally {
      this.moving = false;
    }
  }

  userUpdate({ bytes }: UserUpdate): void {
    this.journal.emit('user_update', { data: { bytes } });
  }

  /** A worker's slot took the step: a session shown as queued runs again. */
  stepStarted(step: number): void {
    this.slots.settle(step);
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
    this.display.publish();
    const startSignal = this.slots.watch(0);
    try {
      await this.project((flush) => this.files.initSession({ input: this.input, flush, ...startSignal }));
    } finally {
      this.slots.settle(0);
    }
    this.controlProjection.opened();
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
    this.display.show(`paused after iteration ${this.state.iteration}`);
    this.display.publish();
    await unlessCancelled(async () => {
      await this.project((flush) => this.files.flush(flush));
      await condition(() => !this.state.dispatch.paused || this.stopRequest !== null);
    });
    this.state.status = 'running';
    this.display.publish();
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
    await unlessCancelled(() => this.project((flush) => this.files.flush(flush)));
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

  /** One turn of the harness, recorded: its outcome (from a stop's salvage too), or null when it had none. */
  async runTurn(): Promise<IterationOutcome | null> {
    const turn = this.beginTurn();
    const dispatchedAt = now();
    let outcome: IterationOutcome | null;
    let failure: string | null = null;
    try {
      outcome = await this.dispatch(turn);
    } catch (error) {
      ({ outcome, failure } = await this.failureOf(turn, error));
      const fault = faultStop(error);
      if (fault && patched('file-fault-stops')) this.fault = fault;
    } finally {
      this.iterationScope = null;
      this.dispatched = null;
      this.turnMoved = false;
      this.slots.settle(turn.iteration);
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
    return unlessCancelled(() => this.children.dispatch(outcome?.childRequests));
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
    this.display.show(`stopped: ${stop.reason}`);
    this.display.publish();
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
    this.display.show(`iteration ${n} · ${routine.id} · ${harness}`);
    this.display.publishIfDue();
    const conversation = conversationFor(routine, this.conversations.get(routine.id), uuid4);
    return { iteration: n, routine, harness, conversation };
  }

  private dispatch(turn: Turn): Promise<IterationOutcome> {
    const remaining = remainingBudgetUsd(this.input.limits, this.state.usage.total.cost_usd);
    const summary = turnSummary(turn.iteration, turn.routine.id, turn.harness);
    const startSignal = this.slots.watch(turn.iteration);
    this.iterationScope = new CancellationScope();
    // The SDK deep-merges these options over the proxy's: only the summary differs from turn to turn.
    return this.iterationScope.run(() =>
      this.project((flush) => {
        this.dispatched = { ...iterationRequest(this.input, turn, flush, remaining), ...startSignal };
        return this.iterations.runIteration.executeWithOptions({ summary }, [this.dispatched]);
      }),
    );
  }

  /**
   * Why a turn has no outcome. A cancelled turn whose worker is gone ends in a heartbeat timeout, not a
   * cancellation; and a turn that failed for good (e.g. a bad harness name) is a failed iteration, not a failed
   * session. A stop can catch a turn whose worker is gone: its cancellation times out, or cancels a retry that never
   * started while the first attempt's harness may still run. Either way the turn is salvaged, not forgotten.
   */
  private async failureOf(
    turn: Turn,
    error: unknown,
  ): Promise<{ outcome: IterationOutcome | null; failure: string }> {
    if (isCancellation(error)) this.noteTemporalCancellation();
    if ((this.stopRequest || this.turnMoved) && patched('salvage-turn-lost-at-stop') && this.dispatched) {
      const request = this.dispatched;
      const salvaged = await CancellationScope.nonCancellable(() =>
        this.files.salvageStoppedIteration({ request }),
      );
      // Absent in salvages recorded before it settled the turn: those were booked without an outcome.
      return { outcome: salvaged.outcome ?? null, failure: salvaged.error };
    }
    if (isCancellation(error) || this.stopRequest)
      return { outcome: null, failure: 'stopped: the iteration was cancelled' };
    return { outcome: null, failure: `the iteration failed: ${rootCause(error) ?? String(error)}` };
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
    if (!patched('one-upsert-per-turn') || (turn.outcome?.childRequests?.length ?? 0) > 0)
      this.display.publish();
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
    this.journal.written(flush, projectionFound(result));
    return result;
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
}
