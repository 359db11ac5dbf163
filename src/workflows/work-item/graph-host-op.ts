// When a process graph's host operation runs. Workflow code: no Node built-ins.
import { patched } from '@temporalio/workflow';
import { GRAPH_MOVES_DURING_TURN } from './patches';

/** What a graph host operation needs of its session. */
export interface GraphHostSession {
  /** Host operations run one at a time, in the session's order. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** A turn is being delivered: it lasts until the agent's turn ends, however long that is. */
  turnUnderWay(): boolean;
}

/**
 * A graph move's host operation (the node's artifacts checked, the next node entered). It runs at once while a turn
 * is under way: the agent reports its node's outcome from inside its turn (`the-loop sessions outcome`, as the
 * plugin's command says), and that turn cannot end before the report returns, so queuing it behind the turn would
 * hold both until the update timed out. Otherwise it keeps the session's order.
 */
export function graphHostOp<T>(session: GraphHostSession, fn: () => Promise<T>): Promise<T> {
  return session.turnUnderWay() && patched(GRAPH_MOVES_DURING_TURN) ? fn() : session.exclusive(fn);
}
