import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SessionStateFile } from './types';

/** Who asks a session to stop, and why; absent fields: the user, "stopped by the user". */
export interface StopRequest {
  reason?: string;
  by?: string;
}

/** Run the session on another host from now on (its directory must be reachable there at the same path). */
export interface MoveRequest {
  hostId: string;
  by?: string;
}

/** What became of a move: the session's host afterwards, and why it did not move. */
export interface MoveResult {
  moved: boolean;
  hostId: string;
  reason: string | null;
}

/** updates_from_user.md grew by this many bytes. */
export interface UserUpdate {
  bytes: number;
}

/** A step's activity has started on a worker: 0 is the session's set-up, n its iteration n. */
export interface StepStarted {
  step: number;
}

/** Finishes the running iteration, then dispatches nothing until resume. */
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** The fleet's budget was raised (`the-loop budget raise`): a session waiting at it checks again before its turn. */
export const budgetRaisedSignal = defineSignal('budgetRaised');
/** Cancels the running iteration (its whole process group is killed) and ends the session. */
export const stopSignal = defineSignal<[StopRequest]>('stop');
/** updates_from_user.md has new content: wakes a waiting session and lands in events.jsonl. */
export const userUpdateSignal = defineSignal<[UserUpdate]>('userUpdate');
/**
 * Sent by a step's activity when a worker's slot takes it (only when the workflow asked, see StepStartSignal): a
 * session shown as `queued` is running again.
 */
export const stepStartedSignal = defineSignal<[StepStarted]>('stepStarted');
/**
 * Moves the session to another host's queue once a worker there has taken its directory over; the turn that was
 * running on the old host is settled on the new one (recovered with its cost when its harness had finished).
 */
export const moveUpdate = defineUpdate<MoveResult, [MoveRequest]>('move');
/** The live state.json projection, including what has not been flushed to disk yet. */
export const statusQuery = defineQuery<SessionStateFile>('status');
