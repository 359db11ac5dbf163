/**
 * How long a step may wait for a worker's activity slot before its session shows as queued. Apart from slot.ts
 * (workflow code) because the activity that reports the step's start times its signal by it too.
 */
export const QUEUED_AFTER_MS = 1000;
