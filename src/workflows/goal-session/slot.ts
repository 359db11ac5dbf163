import { condition, isCancellation, patched, sleep } from '@temporalio/workflow';
import type { StepStartSignal } from './types';
import { ONE_SLOT_TIMER, QUEUED_STEPS } from './patches';
import { QUEUED_AFTER_MS } from './queued-after';

/*
 * A step's activity reports its start (stepStartedSignal) when it started late or still runs shortly before
 * QUEUED_AFTER_MS, and only a step that waits that long changes the status: a session whose steps start at once never
 * flickers through `queued`, nor spends two search-attribute upserts per turn on it.
 */

export interface SlotWaitHooks {
  /** The step has waited QUEUED_AFTER_MS and not started: show the session queued. */
  queued(step: number): void;
  /** A step shown queued started, or ended without starting (cancelled while it waited): show it running. */
  running(): void;
}

/**
 * The step a goal session has scheduled and not yet heard start (0: its set-up, n: iteration n). Only the server
 * knows that an activity waits for a slot, and no workflow event says when one starts: the activity tells the
 * workflow with a signal, and the workflow marks the session queued when that signal is late. Workflow code.
 */
export class SlotWait {
  private awaiting: number | null = null;
  /** When the awaited step was scheduled (workflow time). */
  private since = 0;
  /** The timer that looks at the awaited step is set. */
  private looking = false;
  private shownQueued = false;

  constructor(private readonly hooks: SlotWaitHooks) {}

  /**
   * The step's activity is about to be scheduled: what its request carries. Call outside the step's own
   * cancellation scope. Patched: the watch is a timer, and sessions of an older build never hear their steps start.
   */
  watch(step: number): { startSignal?: StepStartSignal } {
    if (!patched(QUEUED_STEPS)) return {};
    this.awaiting = step;
    if (patched(ONE_SLOT_TIMER)) {
      // A timer set at one step and cancelled at its end is two commands of every turn, and the server's timer
      // writes: one timer at a time looks at whichever step then waits, and is set again for the time it lacks.
      this.since = Date.now();
      if (!this.looking) this.lookAfter(QUEUED_AFTER_MS);
      return { startSignal: { step } };
    }
    void condition(() => this.awaiting !== step, QUEUED_AFTER_MS).then(
      (settled) => {
        if (settled || this.awaiting !== step) return;
        this.shownQueued = true;
        this.hooks.queued(step);
      },
      (error: unknown) => {
        // the session was cancelled through Temporal while its step waited: the loop notices and stops
        if (!isCancellation(error)) throw error;
      },
    );
    return { startSignal: { step } };
  }

  private lookAfter(ms: number): void {
    this.looking = true;
    void sleep(ms).then(
      () => {
        this.looking = false;
        const step = this.awaiting;
        if (step === null || this.shownQueued) return;
        const waited = Date.now() - this.since;
        if (waited < QUEUED_AFTER_MS) return this.lookAfter(QUEUED_AFTER_MS - waited);
        this.shownQueued = true;
        this.hooks.queued(step);
      },
      (error: unknown) => {
        this.looking = false;
        // the session was cancelled through Temporal while its step waited: the loop notices and stops
        if (!isCancellation(error)) throw error;
      },
    );
  }

  /** The step's activity reported its start, or the step ended (it may never have started). */
  settle(step: number): void {
    if (this.awaiting !== step) return;
    this.awaiting = null;
    if (!this.shownQueued) return;
    this.shownQueued = false;
    this.hooks.running();
  }
}
