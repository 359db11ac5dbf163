// The patch markers of a work-item session (work-item-session.ts): each gates a change to the commands the workflow
// issues, so that every history recorded before it still replays.

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
