import { patched } from '@temporalio/workflow';
import type { Flush, SessionStateFile } from './goal-session-types';

/**
 * A control signal's effect (pause, resume, stop) on disk at once: the loop writes state.json only at its next
 * step, which may be a long turn away. Workflow code.
 */
export class ControlProjection {
  /** Set once the session directory exists. */
  private ready: boolean;
  /** A projection said `queued`; the step's own projection, drained before it, is older and refused. */
  private saidQueued = false;

  constructor(
    private readonly state: SessionStateFile,
    private readonly snapshot: () => Flush,
    private readonly write: (flush: Flush) => Promise<void>,
    ready: boolean,
  ) {
    this.ready = ready;
  }

  opened(): void {
    this.ready = true;
  }

  /**
   * Never awaited by the loop; a projection that fails is replaced by the next one. Patched: it schedules an
   * activity from a signal handler, where sessions of an older build scheduled none.
   */
  now(): void {
    if (!this.ready || !patched('project-control-signals')) return;
    if (this.state.status === 'queued') this.saidQueued = true;
    this.write(this.snapshot()).catch(() => undefined);
  }

  /** The queued step started: state.json must not go on saying queued. */
  unqueued(): void {
    if (!this.saidQueued) return;
    this.saidQueued = false;
    this.now();
  }
}
