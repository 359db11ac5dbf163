// The patch ids of a work-item session: each gates a change to the commands the workflow issues, so that every
// history recorded before the change still replays (docs/operations.md says when an id can be retired).

/** A failed spawn ends the session when nothing is queued, else parks it (paused). */
export const FAILED_SPAWN_ENDS_OR_PARKS = 'failed-spawn-ends-or-parks';
/** Marks the runs whose first turn (a claude kickoff, or a process node's turn) goes ahead of queued events. */
export const KICKOFF_FIRST = 'work-item-kickoff';
/** Controls do not queue behind a turn under way: a permission prompt can hold one until a human answers. */
export const CONTROL_BESIDE_TURN = 'work-item-control-beside-turn';
/** An update that is one host operation runs through the one host-verb activity, not an activity of its own. */
export const HOST_VERBS = 'work-item-host-verbs';
/** The session's wait for a person (reason, since when) is recorded on the host and in a search attribute. */
export const WAITING_RECORDED = 'work-item-waiting-recorded';
/** A start under way holds delivery: an event sent meanwhile follows the start's own turn (kickoff or start node). */
export const START_HOLDS_DELIVERY = 'work-item-start-holds-delivery';
/** A reached budget holds the next turn until a raise (the session waits: budget). */
export const BUDGET_WAITS = 'work-item-budget-waits';
/** What a work item's turns have spent is upserted as LoopCostUsd after each turn that reported it. */
export const COST_ATTRIBUTE = 'work-item-cost-attribute';
/** An authorized closure enters the process graph's cleanup node. */
export const AUTHORIZED_CLOSURE = 'work-item-authorized-closure';
/** A turn under way runs in its own cancellation scope, so a stop or an interrupt reaches it. */
export const TURNS = 'work-item-turns';
/** The workflow issues the process graph's commands (labels, gate comments, node turns). */
export const PROCESS_GRAPH = 'work-item-process-graph';
/** The first start re-derives the node from the branch, and a node's artifacts are checked. */
export const BRANCH_STATE = 'work-item-branch-state';
/** Graph moves (outcome, answer, node entry) do not wait behind a turn under way. */
export const GRAPH_MOVES_DURING_TURN = 'work-item-graph-moves-during-turn';
