// What the screenshots start is stopped however the run ends: an error, or SIGINT / SIGTERM. A signal does not
// clean up beside the run (which would go on starting things the clean-up has already passed): it ends the run's
// current wait, and the run's own `finally` cleans up, once, after the last thing it started.
import { constants } from 'node:os';

export class Stopped extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
  }
}

const undo: (() => Promise<unknown> | unknown)[] = [];
let stopped: Stopped | null = null;
let onStop: ((error: Stopped) => void) | null = null;
const signalled = new Promise<never>((_, reject) => {
  onStop = reject;
});
signalled.catch(() => undefined);

/** Installs the handlers; a second signal while cleaning up changes nothing. */
export function handleStopSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stopped ??= new Stopped(signal);
      onStop?.(stopped);
    });
  }
}

/** Registers how to undo a step, before the step: a stop in the middle of it still undoes it. */
export function atTeardown(step: () => Promise<unknown> | unknown): void {
  undo.push(step);
}

/** Throws once a signal came: between steps that cannot be interrupted (files, a browser's launch). */
export function checkpoint(): void {
  if (stopped) throw stopped;
}

/** Waits for `work`, or for a signal: for waits that the teardown ends anyway (a child process, the browser). */
export function unlessStopped<T>(work: Promise<T>): Promise<T> {
  return Promise.race([work, signalled]);
}

/** Undoes every step, newest first; each is tried even when one before it failed. */
export async function teardown(): Promise<void> {
  for (let step = undo.pop(); step; step = undo.pop()) {
    try {
      await step();
    } catch (error) {
      console.error(`board-screenshots: cleaning up: ${(error as Error).message}`);
    }
  }
}

/** The exit code of a run: 128 + the signal's number after a signal, as a shell reports it. */
export function exitCodeFor(error: unknown): number {
  return error instanceof Stopped ? 128 + constants.signals[error.signal] : 1;
}
