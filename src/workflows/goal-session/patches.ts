// The patch ids of a goal session: each gates a change to the commands the workflow issues, so that every history
// recorded before the change still replays (docs/operations.md says when an id can be retired).

/** Past the event threshold, the session continues as new (older runs replay their turns instead). */
export const CONTINUE_AS_NEW = 'continue-as-new';
/** A short file write is tried a bounded number of times, then blocks the session. */
export const FILE_ACTIVITY_ATTEMPTS = 'file-activity-attempts';
/** A file fault pauses the session with its reason instead of failing the workflow task. */
export const FILE_FAULT_PAUSES = 'file-fault-pauses';
/** A stop that came while a file fault blocked the session is the user's stop. */
export const FILE_FAULT_STOPS = 'file-fault-stops';
/** A `conversation: continue` that had to open a new conversation records why. */
export const CONVERSATION_RESET = 'goal-conversation-reset';
/** The fleet's budget spent: no turn until a raise, a resume or a stop. */
export const FLEET_BUDGET_WAITS = 'goal-fleet-budget-waits';
/** A permission prompt is a wait for a person (waiting: permission). */
export const PERMISSION_WAITS = 'goal-permission-waits';
/** A question the harness asked is a wait for a person (waiting: question). */
export const QUESTION_WAITS = 'goal-question-waits';
/** Why the session waits on a person goes into the LoopWaiting search attribute. */
export const WAITING_ATTRIBUTE = 'goal-waiting-attribute';
/** Journal events the projection never confirmed are sent again after a crash. */
export const JOURNAL_RESENDS = 'journal-resends-unwritten-events';
/** Publish search attributes once per turn, not twice, unless a child session may wait before the next. */
export const ONE_UPSERT_PER_TURN = 'one-upsert-per-turn';
/** Control signals are projected to control.json by an activity scheduled from the signal handler. */
export const PROJECT_CONTROL_SIGNALS = 'project-control-signals';
/** A projection left unwritten by a crash is repaired on resume. */
export const PROJECTION_REPAIR = 'projection-repair';
/** A step waiting for a worker's activity slot is watched by a timer and shown as queued. */
export const QUEUED_STEPS = 'queued-steps';
/** One timer watches the steps for their slot, instead of one started and cancelled at every step. */
export const ONE_SLOT_TIMER = 'one-slot-timer';
/** A turn cut short by a stop or a move is salvaged from its files, so its cost is recorded. */
export const SALVAGE_TURN_AT_STOP = 'salvage-turn-lost-at-stop';
/** Search attributes go out when the status changed or the last upsert is a second old. */
export const ATTRIBUTES_ONCE_A_SECOND = 'search-attributes-once-a-second';
/** A stop is sent to the running turn's worker at once, not only through Temporal's cancellation. */
export const STOP_TURN_DIRECTLY = 'stop-turn-directly';
