import { patched } from '@temporalio/workflow';
import type { Flush, SessionStateFile } from './types';
import { PROJECT_CONTROL_SIGNALS, STOP_TURN_DIRECTLY } from './patches';

/** The activities a control signal starts, and the projection it writes. */
export interface ControlActs {
  snapshot(): Flush;
  write(flush: Flush): Promise<unknown>;
  /** Stops the turn where it runs (the stopRunningTurn activity); false when no worker process ran it. */
  stopTurn(iteration: number): Promise<boolean>;
}

/**
 * What a control signal (pause, resume, stop) does at once, without waiting for the loop: its effect is written to
 * state.json, which the loop writes only at its next step, a long turn away; and a stop reaches the running turn.
 * Never awaited by the loop: a projection that fails is replaced by the next one. Workflow code.
 */
export class ControlProjection {
  /** Set once the session directory exists. */
  private ready: boolean;
  /** A projection said `queued`; the step's own projection, drained before it, is older and refused. */
  private saidQueued = false;

  constructor(
    private readonly state: SessionStateFile,
    ready: boolean,
    private readonly acts: ControlActs,
  ) {
    this.ready = ready;
  }

  opened(): void {
    this.ready = true;
  }

  /** Patched: it schedules an activity from a signal handler, where sessions of an older build scheduled none. */
  now(): void {
    if (!this.ready || !patched(PROJECT_CONTROL_SIGNALS)) return;
    if (this.state.status === 'queued') this.saidQueued = true;
    this.acts.write(this.acts.snapshot()).catch(() => undefined);
  }

  /**
   * A stop: projected, and the running turn stopped by its worker at once. Temporal's cancellation, which the
   * workflow also requests, reaches the turn only with a heartbeat's reply, and turns heartbeat seldom while nothing
   * changes. Patched, as now().
   */
  stopped(): void {
    this.now();
    const turn = this.state.dispatch.active_iteration;
    if (!this.ready || !turn || !patched(STOP_TURN_DIRECTLY)) return;
    this.acts.stopTurn(turn.number).catch(() => false);
  }

  /** The queued step started: state.json must not go on saying queued. */
  unqueued(): void {
    if (!this.saidQueued) return;
    this.saidQueued = false;
    this.now();
  }
}
