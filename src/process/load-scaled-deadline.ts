import { availableParallelism, loadavg } from 'node:os';

/** How much longer than on an idle machine a start-up may take: never less, and at most this many times. */
const MAX_LOAD_FACTOR = 8;

/** The machine's load per core, from 1 (idle, or no busier than its cores) up to MAX_LOAD_FACTOR. */
export function loadFactor(load: number, cores: number): number {
  if (!Number.isFinite(load) || cores < 1) return 1;
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, load / cores));
}

export interface LoadProbe {
  now(): number;
  /** The one-minute load average. */
  load(): number;
  cores: number;
}

const machine: LoadProbe = { now: Date.now, load: () => loadavg()[0] ?? 0, cores: availableParallelism() };

/**
 * A deadline for something whose duration is the machine's CPU time, such as a process's start-up: `baseMs` on an idle
 * machine, stretched by the load per core. The factor is the highest seen while waiting, so a wait that began on a
 * quiet machine that then got busy is stretched too, and a load that falls again does not cut it short. `describe()`
 * says what was allowed and why, for the message of a wait that gave up.
 */
export class LoadScaledDeadline {
  private readonly started: number;
  /** The highest one-minute load average seen while waiting. */
  private highestLoad: number;

  constructor(
    readonly baseMs: number,
    private readonly probe: LoadProbe = machine,
  ) {
    this.started = probe.now();
    this.highestLoad = probe.load();
  }

  /** Milliseconds waited so far. */
  elapsedMs(): number {
    return this.probe.now() - this.started;
  }

  /** Milliseconds allowed, as the load stands now. */
  allowedMs(): number {
    this.highestLoad = Math.max(this.highestLoad, this.probe.load());
    return Math.round(this.baseMs * loadFactor(this.highestLoad, this.probe.cores));
  }

  expired(): boolean {
    return this.elapsedMs() >= this.allowedMs();
  }

  /** "96 s (60 s on an idle machine, ×1.6 for a load of 3.2 on 2 cores)". */
  describe(): string {
    const allowed = this.allowedMs();
    const factor = loadFactor(this.highestLoad, this.probe.cores);
    const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
    const load = `a load of ${this.highestLoad.toFixed(1)} on ${this.probe.cores} cores`;
    if (factor === 1) return `${seconds(allowed)} (not stretched: ${load} at most)`;
    return `${seconds(allowed)} (${seconds(this.baseMs)} on an idle machine, ×${factor.toFixed(1)} for ${load})`;
  }
}
