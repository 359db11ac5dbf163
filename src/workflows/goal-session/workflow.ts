import { patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { controlStop } from './bookkeeping';
import { continueAsNewDue, type Stop } from './limits';
import {
  budgetRaisedSignal,
  moveUpdate,
  pauseSignal,
  resumeSignal,
  statusQuery,
  stepStartedSignal,
  stopSignal,
  userUpdateSignal,
} from './messages';
import { GoalSession } from './state';
import type { GoalSessionCarry, GoalSessionInput, GoalSessionResult } from './types';
import { CONTINUE_AS_NEW, FLEET_BUDGET_WAITS } from './patches';

/**
 * One goal session: iterations of a harness toward a goal until a stop condition fires. The state and its
 * handlers are a GoalSession (goal-session/state.ts); this wires the messages (goal-session/messages.ts) to it and
 * runs the loop.
 */
export async function goalSession(
  input: GoalSessionInput,
  carry?: GoalSessionCarry,
): Promise<GoalSessionResult> {
  const session = new GoalSession(input, carry);
  setHandler(statusQuery, () => session.status());
  setHandler(pauseSignal, () => session.pause());
  setHandler(resumeSignal, () => session.resume());
  setHandler(budgetRaisedSignal, () => session.budgetRaised());
  setHandler(stopSignal, (request) => session.stop(request));
  setHandler(userUpdateSignal, (update) => session.userUpdate(update));
  setHandler(stepStartedSignal, ({ step }) => session.stepStarted(step));
  setHandler(moveUpdate, (request) => session.moves.move(request));

  // A directory that cannot be set up stops the session at once, with the reason.
  let stop: Stop | null = carry ? null : await session.open();
  while (!stop) {
    stop = session.requestedStop();
    if (stop) break;
    if (session.paused) {
      await session.waitWhilePaused();
      continue;
    }
    stop = session.limitReached();
    if (stop) break;
    // Patched: a session that passed the threshold on an older build replays its turns, not a continue-as-new.
    if (continueAsNewDue(workflowInfo(), input.continueAsNewAfterEvents) && patched(CONTINUE_AS_NEW)) {
      await session.continueAsNew();
      continue;
    }
    // the fleet's budget spent: no turn until a raise (or a resume, or a stop)
    if (input.fleetBudget && patched(FLEET_BUDGET_WAITS) && (await session.heldAtFleetBudget())) continue;
    const outcome = await session.runTurn();
    stop = session.fault ?? controlStop(outcome);
    if (stop) break;
    await session.dispatchChildren(outcome);
  }
  return session.finish(stop);
}
