// Shared by the workflow, the activities, the CLI and the tests: types only, so workflow code stays deterministic.
import type { Routine } from '../../session/routine-schedule';
import type { ControlFile } from '../../session/schemas/control';
import type { SessionEvent } from '../../session/schemas/event';
import type { ResultFile } from '../../session/schemas/result';
import type { GoalCheckFile } from '../../session/schemas/goal-check';
import type { ChildRecord } from '../../session/schemas/children';
import type { SessionStateFile, StopKind } from '../../session/schemas/state';
import type { Usage } from '../../session/schemas/usage';
import type { ChildRequestScan } from '../children/plan';

export type HarnessKind = 'claude' | 'cursor' | 'codex' | 'command';

export interface SessionLimits {
  maxIterations: number | null;
  maxCostUsd: number | null;
  maxDurationMs: number | null;
  maxConsecutiveFailures: number;
}

export interface GoalSessionInput {
  sessionId: string;
  /** Absolute path of .loopy_loop/sessions/<session_id>/ on the host that runs the session's activities. */
  sessionDir: string;
  cwd: string;
  goal: string;
  goalHash: string;
  createdAt: string;
  harness: HarnessKind;
  /** The `command` harness's command line (from --harness-command). */
  harnessCommand: string | null;
  routines: Routine[];
  routinesFile: string | null;
  limits: SessionLimits;
  iterationTimeoutMs: number;
  heartbeatTimeoutMs: number;
  taskQueue: string;
  /** The activities' queue on the host that holds the session directory. */
  hostQueue: string;
  parentSessionId: string | null;
  /** Continue as new once the run's history has this many events (default: when the server suggests it). */
  continueAsNewAfterEvents?: number;
  /** session.waitOnQuestion: a turn whose reply ends on a question pauses for its answer (absent: never). */
  /**
   * A fleet budget (budget.daily or budget.monthly) was configured when the session started: each turn first asks
   * whether it is spent (absent: never asked, as in sessions of older builds).
   */
  fleetBudget?: boolean;
  waitOnQuestion?: boolean;
  /** session.waitOnPermission: a turn failed by refused tool calls pauses for a person (absent: never). */
  waitOnPermission?: boolean;
}

/** A projection to persist: state.json first, then the events (DESIGN: events follow the state mutation). */
export interface Flush {
  sessionDir: string;
  /**
   * state.json with only its most recent history entries: the activity merges them into the file by iteration
   * number. Sending the whole history every turn would make each turn's payload (and the workflow history) grow
   * with the session's length.
   */
  state: SessionStateFile;
  events: SessionEvent[];
  /** Iterations whose outcome the workflow has recorded: their pending_finished_request.json goes. */
  acknowledge: { iteration: number; routineId: string }[];
  /**
   * The first iteration whose history entry the workflow holds (a continued-as-new run holds the newest ones
   * only): state.json and history.jsonl together must hold every entry from there on. Absent in projections
   * recorded before it (1).
   */
  heldFrom?: number;
}

export interface IterationRequest {
  flush: Flush;
  input: Pick<
    GoalSessionInput,
    'sessionId' | 'sessionDir' | 'cwd' | 'goal' | 'harness' | 'harnessCommand' | 'iterationTimeoutMs'
  >;
  iteration: number;
  routine: Routine;
  conversation: { id: string; resume: boolean } | null;
  /** What is left of the cost budget; caps a claude turn's --max-budget-usd. */
  remainingBudgetUsd: number | null;
  startSignal?: StepStartSignal;
  /**
   * How many times the workflow has dispatched this iteration: 2 and on after a file fault blocked the turn and the
   * session was resumed. Its attempts outrank every attempt of an earlier dispatch (attempt-lease.ts). Absent: 1.
   */
  dispatch?: number;
}

/**
 * Set when the workflow wants to hear that the step's activity has started (stepStartedSignal): until then it may
 * show the session as queued. Absent from requests of workflows started before sessions could be queued.
 */
export interface StepStartSignal {
  step: number;
}

export interface IterationOutcome {
  result: ResultFile;
  usage: Usage | null;
  control: ControlFile;
  /** control.json could not be read as a stop switch (the loop goes on; the problem is reported). */
  controlError: string | null;
  goalCheck: GoalCheckFile | null;
  conversationId: string | null;
  /**
   * The turn came from an earlier attempt: its result.json (the crash hit the handoff window), or what its harness
   * left (exit.json and its output) when it finished while no worker watched it.
   */
  recovered: boolean;
  aborted: boolean;
  startedAt: string;
  finishedAt: string;
  /**
   * Set when an earlier attempt started the harness, died, and left no result.json: the turn is recorded as
   * abandoned (result.error carries the same history error). Absent in outcomes recorded before salvage existed.
   */
  abandoned?: AbandonedTurn | null;
  /** New files in child_requests/, scanned after the turn (absent when there are none). */
  childRequests?: ChildRequestScan[];
  /** What writing the projection this turn carried found on disk (absent in outcomes recorded before it). */
  projection?: ProjectionReport;
}

/**
 * How a stop's salvage settled a turn left without an outcome: the turn as a retry would record it. The second form
 * is what salvages recorded before it settled the turn returned (why it was abandoned, no outcome, no cost).
 */
export type StoppedTurnSalvage =
  { outcome: IterationOutcome } | { error: string; salvageFile: string | null };

/** What an activity found writing a projection: state.json had lost history entries that the workflow holds. */
export interface ProjectionReport {
  historyGap: boolean;
  /** events.jsonl ended before the projection's first event: rewritten whole, with this many events. */
  eventsRebuilt?: number;
}

/** Crash recovery's verdict on an interrupted turn (see src/activities/salvage.ts). */
export interface AbandonedTurn {
  /** "abandoned", or "abandoned_after_sigterm" / "abandoned_after_sigkill" when an orphan had to be stopped. */
  error: string;
  /** salvage.json, when at least one tracked harness run was processed. */
  salvageFile: string | null;
  /** Reaper reports in salvage.json. */
  reports: number;
  harnessRunId: string | null;
}

export interface FinishRequest {
  flush: Flush;
  stop: { kind: StopKind; reason: string };
}

/**
 * What a goal session hands to its next run when it continues as new (its event history is getting long): the
 * state, with only the newest history entries (history.jsonl keeps them all), and what the loop remembers.
 */
export interface GoalSessionCarry {
  state: SessionStateFile;
  seq: number;
  startedMs: number;
  conversations: [string, string][];
  previousRoutine: string | null;
  children: ChildRecord[];
  /** Events and acknowledgements not yet written (a signal can arrive during the last write). */
  events: SessionEvent[];
  acknowledge: { iteration: number; routineId: string }[];
}

/** A stop request as the session took it: who, and why. */
export interface AcceptedStop {
  reason: string;
  by: string;
}

/** A turn as the workflow dispatches it. */
export interface Turn {
  iteration: number;
  routine: Routine;
  harness: string;
  conversation: { id: string; resume: boolean } | null;
}

export interface GoalSessionResult {
  sessionId: string;
  stop: { kind: StopKind; reason: string };
  iterations: number;
  usage: Usage;
}

export type { SessionStateFile, StopKind, Usage };
