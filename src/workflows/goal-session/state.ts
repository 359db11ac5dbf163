import {
  CancellationScope,
  condition,
  continueAsNew,
  patched,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { STATE_HISTORY_ENTRIES } from '../../session/history';
import { pickRoutine } from '../../session/routine-schedule';
import { createChildCoordinator, type ChildCoordinator } from '../children/children';
import { clone } from '../clone';
import {
  applyTurnBook,
  bookTurn,
  conversationFor,
  conversationReset,
  CONVERSATION_RESET_REASON,
  permissionRefused,
  questionAsked,
  newSessionState,
  turnDetails,
  type EndedTurn,
} from './bookkeeping';
import { goalSessionActivities } from './activities';
import { ControlProjection } from './control-projection';
import { SessionDisplay } from './display';
import { TurnDispatch } from './dispatch';
import { blockDispatch, faultStop, fileWriteFailureOf, pausedDetails, type FileFault } from './faults';
import { projectionFound, SessionJournal } from './journal';
import type { StopRequest, UserUpdate } from './messages';
import { HostMoves } from './move';
import { limitReached, type Stop } from './limits';
import type { goalSession } from './workflow';
import type {
  AcceptedStop,
  Flush,
  GoalSessionCarry,
  GoalSessionInput,
  GoalSessionResult,
  IterationOutcome,
  SessionStateFile,
  Turn,
} from './types';
import { SlotWait } from './slot';
import { unlessCancelled } from './unless-cancelled';
import {
  CONVERSATION_RESET,
  FILE_ACTIVITY_ATTEMPTS,
  FILE_FAULT_PAUSES,
  FILE_FAULT_STOPS,
  JOURNAL_RESENDS,
  ONE_UPSERT_PER_TURN,
  PERMISSION_WAITS,
  PROJECTION_REPAIR,
  QUESTION_WAITS,
} from './patches';

const now = () => new Date().toISOString();

/**
 * How many history entries a continue-as-new carries into the next run (its input is one payload, 2 MB at most):
 * history.jsonl keeps every entry, and `loopy status` merges the live state with state.json's sums of them.
 */
const CARRIED_HISTORY = 200;

/**
 * A goal session's state and the handlers that change it: the workflow (goal-session/workflow.ts) wires its messages to
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
  /** A file fault that stopped a turn of an older build's session (newer ones pause, blocked); null if none. */
  fault: Stop | null = null;
  /** The harness turn's activity, dispatched again after a file fault once resumed (goal-session/dispatch.ts). */
  private readonly turns: TurnDispatch;
  private readonly display: SessionDisplay;
  /** The step waiting for a worker's activity slot, shown as `queued` when it waits long (goal-session/slot.ts). */
  private readonly slots: SlotWait;
  private readonly controlProjection: ControlProjection;
  /** `files`: short file writes; `iterations`: the harness turn. On the session's host: rebuilt when it moves. */
  private activities: ReturnType<typeof goalSessionActivities>;
  /** `loopy move` (the workflow wires its update straight to it). */
  readonly moves: HostMoves;

  constructor(
    private readonly input: GoalSessionInput,
    carry?: GoalSessionCarry,
  ) {
    const startedAt = carry?.state.started_at ?? now();
    this.state = carry ? clone(carry.state) : newSessionState(input.sessionId, startedAt);
    this.journal = new SessionJournal(input.sessionId, input.sessionDir, carry, {
      resendUnconfirmed: patched(JOURNAL_RESENDS),
      repairProjection: patched(PROJECTION_REPAIR),
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
      write: (flush) => this.activities.files.flush(flush),
      stopTurn: (iteration) =>
        this.activities.files.stopRunningTurn({ sessionDir: input.sessionDir, iteration }),
    });
    this.activities = goalSessionActivities(input, patched(FILE_ACTIVITY_ATTEMPTS));
    this.turns = new TurnDispatch({
      input,
      state: this.state,
      slots: this.slots,
      activities: () => this.activities,
      project: (send) => this.project(send),
      stopRequest: () => this.stopRequest,
      noteTemporalCancellation: () => this.noteTemporalCancellation(),
      blocked: async (fault, iteration) => {
        this.block(fault, iteration);
        await this.waitWhilePaused();
      },
      show: (details) => this.display.show(details),
    });
    this.moves = new HostMoves({
      input,
      stopping: () => this.stopRequest !== null,
      emit: (type, data) => this.journal.emit(type, { data }),
      moved: () => {
        this.activities = goalSessionActivities(input, patched(FILE_ACTIVITY_ATTEMPTS));
        this.display.publish();
        this.turns.movedAway();
      },
    });
    // Child sessions (children/children.ts): dispatched after a turn; pause, resume and stop reach them.
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

  /** The newest history entries only, as in state.json: the answer stays the same size however long the run. */
  status(): SessionStateFile {
    return { ...this.state, history: this.state.history.slice(-STATE_HISTORY_ENTRIES), updated_at: now() };
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
    // A blocked session is resumed by its user once the fault is fixed: its turn is dispatched again.
    if (this.state.dispatch.blocked) this.state.dispatch.blocked = null;
    // a question is answered by an update, or passed over by a resume
    if (this.state.dispatch.asked) this.state.dispatch.asked = null;
    // a budget wait is checked again before the next turn
    if (this.state.dispatch.budget) this.state.dispatch.budget = null;
    // refused tool calls: the person allowed the tool, or lets the session go on without it
    if (this.state.dispatch.denied) this.state.dispatch.denied = null;
    this.journal.emit('session_resumed');
    this.children.forward('resume');
    this.controlProjection.now();
  }

  stop({ reason, by }: StopRequest): void {
    if (this.stopRequest) return;
    this.requestStop({ reason: reason?.trim() || 'stopped by the user', by: by ?? 'user' });
    this.turns.cancel();
    this.children.forward('stop');
    this.controlProjection.stopped();
  }

  userUpdate({ bytes }: UserUpdate): void {
    this.journal.emit('user_update', { data: { bytes } });
    // the answer to the question (or the refusal) the session waits on: the next turn reads it first
    if (this.state.dispatch.asked || this.state.dispatch.denied) this.resume();
  }

  /** The fleet's budget was raised: a session held at it goes on, and checks again before its next turn. */
  budgetRaised(): void {
    if (this.state.dispatch.budget) this.resume();
  }

  /** A worker's slot took the step: a session shown as queued runs again. */
  stepStarted(step: number): void {
    this.slots.settle(step);
  }

  // --- the loop's steps -------------------------------------------------------------------------------------

  /** A new session: its directory, its first events and attributes; the stop a fault of its files calls for. */
  async open(): Promise<Stop | null> {
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
      await this.project((flush) =>
        this.activities.files.initSession({ input: this.input, flush, ...startSignal }),
      );
    } catch (error) {
      // A directory that cannot be set up at all: nothing to pause in, the session stops and says why.
      const stop = faultStop(error);
      if (!stop || !patched(FILE_FAULT_PAUSES)) throw error;
      return stop;
    } finally {
      this.slots.settle(0);
    }
    this.controlProjection.opened();
    this.startedMs = Date.now();
    return null;
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

  /** Paused by its user or blocked by a file fault: until a resume or a stop. */
  async waitWhilePaused(): Promise<void> {
    this.state.status = 'paused';
    this.display.show(pausedDetails(this.state));
    this.display.publish();
    await unlessCancelled(async () => {
      await this.projectUnlessBlocked();
      await condition(() => !this.state.dispatch.paused || this.stopRequest !== null);
    });
    this.state.status = 'running';
    this.display.publish();
  }

  /**
   * Before a turn: the fleet's budget (budget.daily, budget.monthly, over every session and work item of the state
   * directory) holds it back once spent. The session pauses as `waiting: budget` until a raise, a resume or a stop.
   */
  async heldAtFleetBudget(): Promise<boolean> {
    let detail: string | null;
    try {
      ({ reached: detail } = await this.project((flush) => this.activities.files.fleetBudgetReached(flush)));
    } catch (error) {
      // a projection that cannot be written: the turn's own meets the same fault, and blocks the session
      if (!fileWriteFailureOf(error) || !patched(FILE_FAULT_PAUSES)) throw error;
      return false;
    }
    if (detail === null) return false;
    this.state.dispatch.paused = true;
    this.state.dispatch.budget = { detail, at: now() };
    this.journal.emit('budget_reached', { data: { detail } });
    return true;
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
    await unlessCancelled(() => this.projectUnlessBlocked());
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
    const { outcome, failure, error } = await this.turns.run(turn);
    // A stop that came while a fault blocked the session is the user's stop.
    const fault = error === undefined ? null : faultStop(error);
    if (fault && !this.stopRequest && patched(FILE_FAULT_STOPS)) this.fault = fault;
    this.recordTurn({
      iteration: turn.iteration,
      routine: turn.routine,
      dispatchedAt,
      recordedAt: now(),
      outcome,
      failure,
      conversation: turn.conversation,
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
      this.activities.files.finishSession({ flush: this.journal.drain(this.state), stop }),
    ).catch((error: unknown) => {
      if (!fileWriteFailureOf(error)) throw error;
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
    this.display.show(turnDetails(n, routine.id, harness));
    this.display.publishIfDue();
    const conversation = conversationFor(routine, this.conversations.get(routine.id), uuid4);
    return { iteration: n, routine, harness, conversation };
  }

  private recordTurn(turn: EndedTurn): void {
    const { state } = this;
    const book = bookTurn(state, turn);
    applyTurnBook(state, book);
    if (book.conversationId) this.conversations.set(turn.routine.id, book.conversationId);
    this.previousRoutine = turn.routine.id;
    if (turn.outcome) this.journal.acknowledge(turn.iteration, turn.routine.id);
    this.journal.emit(book.event.type, {
      iteration: turn.iteration,
      routine_id: turn.routine.id,
      data: book.event.data,
    });
    this.waitForAnswer(turn);
    this.waitForPermission(turn);
    // `conversation: continue` that had to open a new conversation says so, with why (loopy status shows it)
    const reset = conversationReset(turn);
    if (reset && patched(CONVERSATION_RESET)) {
      const data = { ...reset, reason: CONVERSATION_RESET_REASON };
      this.journal.emit('conversation_reset', {
        iteration: turn.iteration,
        routine_id: turn.routine.id,
        data,
      });
    }
    // The next turn's upsert, in this same workflow task, carries the new cost; publish now only when something
    // may wait before it (a child session) — one upsert per turn instead of two.
    if (!patched(ONE_UPSERT_PER_TURN) || (turn.outcome?.childRequests?.length ?? 0) > 0)
      this.display.publish();
  }

  /** A turn whose reply ends on a question pauses the session until someone answers it (`loopy update`). */
  private waitForAnswer(turn: EndedTurn): void {
    const question = questionAsked(turn.outcome);
    if (question === null || !this.input.waitOnQuestion || this.stopRequest) return;
    if (!patched(QUESTION_WAITS)) return;
    this.state.dispatch.paused = true;
    this.state.dispatch.asked = { question, iteration: turn.iteration, at: now() };
    this.journal.emit('question_asked', {
      iteration: turn.iteration,
      routine_id: turn.routine.id,
      data: { question },
    });
  }

  /** A turn failed because its agent was refused its tool calls: the session pauses until a person lets it go on. */
  private waitForPermission(turn: EndedTurn): void {
    const refused = permissionRefused(turn.outcome);
    if (refused === null || !this.input.waitOnPermission || this.stopRequest) return;
    if (!patched(PERMISSION_WAITS)) return;
    this.state.dispatch.paused = true;
    const denied = { harness: this.input.harness, ...refused };
    this.state.dispatch.denied = { ...denied, iteration: turn.iteration, at: now() };
    this.journal.emit('permission_refused', {
      iteration: turn.iteration,
      routine_id: turn.routine.id,
      data: denied,
    });
  }

  // --- events, projections, attributes ----------------------------------------------------------------------

  /** Sends the next projection with an activity; what it carried is owed again unless the activity completes. */
  private async project<T>(send: (flush: Flush) => Promise<T>): Promise<T> {
    const flush = this.journal.drain(this.state);
    const result = await send(flush);
    this.journal.written(flush, projectionFound(result));
    return result;
  }

  /** A file fault pauses the session with its reason (goal-session/faults.ts). */
  private block(fault: FileFault, iteration: number | null): void {
    this.journal.emit('session_blocked', blockDispatch(this.state.dispatch, fault, iteration, now()));
    this.display.show(pausedDetails(this.state));
  }

  /** The next projection; one that cannot be written blocks the session, which waits for its user. */
  private async projectUnlessBlocked(): Promise<void> {
    try {
      await this.project((flush) => this.activities.files.flush(flush));
    } catch (error) {
      const fault = fileWriteFailureOf(error);
      if (!fault || !patched(FILE_FAULT_PAUSES)) throw error;
      if (!this.state.dispatch.blocked) this.block(fault, null);
    }
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
