import {
  CancellationScope,
  isCancellation,
  patched,
  rootCause,
  type ActivityInterfaceFor,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { iterationRequest, turnDetails, turnSummary } from './bookkeeping';
import { fileFaultOf, type FileFault } from './faults';
import { remainingBudgetUsd } from './limits';
import type { SlotWait } from './slot';
import type {
  AcceptedStop,
  Flush,
  GoalSessionInput,
  IterationOutcome,
  IterationRequest,
  SessionStateFile,
  Turn,
} from './types';
import { FILE_FAULT_PAUSES, SALVAGE_TURN_AT_STOP } from './patches';

/** What a turn's dispatch needs of its session (GoalSession). */
export interface TurnDispatchHooks {
  input: GoalSessionInput;
  state: SessionStateFile;
  slots: SlotWait;
  /** The session's activities, on its host's queue (they change when the session moves to another host). */
  activities(): { files: ActivityInterfaceFor<Activities>; iterations: ActivityInterfaceFor<Activities> };
  project<T>(send: (flush: Flush) => Promise<T>): Promise<T>;
  stopRequest(): AcceptedStop | null;
  /** A cancellation by Temporal itself becomes a stop request (GoalSession.noteTemporalCancellation). */
  noteTemporalCancellation(): void;
  /** A file fault blocked the turn: the session pauses with the reason until it is resumed or stopped. */
  blocked(fault: FileFault, iteration: number): Promise<void>;
  show(details: string): void;
}

/** How a turn's dispatch ended: its outcome, or why it has none (and the error, for the session's fault stop). */
export interface DispatchEnd {
  outcome: IterationOutcome | null;
  failure: string | null;
  error?: unknown;
}

/**
 * The harness turn's activity, as the workflow dispatches it, and what the turn comes to when the activity fails:
 * a file fault blocks the session and, once resumed, the turn is dispatched again; a stop's salvage settles a turn
 * left without an outcome. Workflow code.
 */
export class TurnDispatch {
  private scope: CancellationScope | null = null;
  /** The running turn's activity input, for the salvage of a turn that a stop left without an outcome. */
  private request: IterationRequest | null = null;
  /** The session moved to another host while the turn ran: it is settled there, as a stop's would be. */
  private moved = false;

  constructor(private readonly hooks: TurnDispatchHooks) {}

  /** A stop: the running turn's activity is cancelled. */
  cancel(): void {
    this.scope?.cancel();
  }

  /** The session moved to another host: the turn that ran on the old one is cancelled and settled on the new one. */
  movedAway(): void {
    if (!this.scope) return;
    this.moved = true;
    this.scope.cancel();
  }

  async run(turn: Turn): Promise<DispatchEnd> {
    try {
      return { outcome: await this.untilUnblocked(turn), failure: null };
    } catch (error) {
      return { ...(await this.failureOf(error)), error };
    } finally {
      this.scope = null;
      this.request = null;
      this.moved = false;
      this.hooks.slots.settle(turn.iteration);
    }
  }

  /**
   * After a file fault the session is blocked (paused, with the reason) and, once resumed, the turn is dispatched
   * again: that dispatch recovers what the earlier one's harness left, or runs the turn if its harness never
   * started. A stop while blocked ends the turn with the fault (failureOf salvages it).
   */
  private async untilUnblocked(turn: Turn): Promise<IterationOutcome> {
    for (let dispatch = 1; ; dispatch++) {
      try {
        return await this.dispatch(turn, dispatch);
      } catch (error) {
        const fault = fileFaultOf(error);
        if (!fault || this.hooks.stopRequest() || !patched(FILE_FAULT_PAUSES)) throw error;
        await this.hooks.blocked(fault, turn.iteration);
        this.hooks.noteTemporalCancellation();
        if (this.hooks.stopRequest()) throw error;
        this.hooks.show(turnDetails(turn.iteration, turn.routine.id, turn.harness));
      }
    }
  }

  private dispatch(turn: Turn, dispatch: number): Promise<IterationOutcome> {
    const { input, state, slots } = this.hooks;
    const remaining = remainingBudgetUsd(input.limits, state.usage.total.cost_usd);
    const summary = turnSummary(turn.iteration, turn.routine.id, turn.harness);
    const startSignal = slots.watch(turn.iteration);
    this.scope = new CancellationScope();
    // The SDK deep-merges these options over the proxy's: only the summary differs from turn to turn.
    return this.scope.run(() =>
      this.hooks.project((flush) => {
        this.request = {
          ...iterationRequest(input, turn, flush, remaining),
          ...startSignal,
          ...(dispatch > 1 ? { dispatch } : {}),
        };
        return this.hooks
          .activities()
          .iterations.runIteration.executeWithOptions({ summary }, [this.request]);
      }),
    );
  }

  /**
   * Why a turn has no outcome. A cancelled turn whose worker is gone ends in a heartbeat timeout, not a
   * cancellation; and a turn that failed for good (e.g. a bad harness name) is a failed iteration, not a failed
   * session. A stop can catch a turn whose worker is gone: its cancellation times out, or cancels a retry that never
   * started while the first attempt's harness may still run. Either way the turn is salvaged, not forgotten.
   */
  private async failureOf(error: unknown): Promise<Omit<DispatchEnd, 'error'>> {
    if (isCancellation(error)) this.hooks.noteTemporalCancellation();
    const stopped = this.hooks.stopRequest() !== null;
    if ((stopped || this.moved) && patched(SALVAGE_TURN_AT_STOP) && this.request) {
      const request = this.request;
      let salvaged;
      try {
        salvaged = await CancellationScope.nonCancellable(() =>
          this.hooks.activities().files.salvageStoppedIteration({ request }),
        );
      } catch (salvageError) {
        // A file fault (or a salvage refused every attempt) leaves the turn to its files: the stop still ends it.
        if (!patched(FILE_FAULT_PAUSES)) throw salvageError;
        const why = rootCause(salvageError) ?? String(salvageError);
        return { outcome: null, failure: `stopped: the iteration could not be salvaged: ${why}` };
      }
      return 'outcome' in salvaged
        ? { outcome: salvaged.outcome, failure: null }
        : { outcome: null, failure: salvaged.error };
    }
    if (isCancellation(error) || stopped)
      return { outcome: null, failure: 'stopped: the iteration was cancelled' };
    return { outcome: null, failure: `the iteration failed: ${rootCause(error) ?? String(error)}` };
  }
}
