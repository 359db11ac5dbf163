import { BAD_CWD, type ProcessOutcome } from './process';
import type { HarnessRunResult } from './types';

/** Failures that are the same for every harness: it did not start, timed out, was aborted. */
export function processFailure(
  outcome: ProcessOutcome,
  executable: string,
  envVar: string | null,
  timeoutMs: number,
): string | null {
  const spawnError = outcome.spawnError;
  if (spawnError) {
    if (spawnError.code === BAD_CWD) return spawnError.message;
    const hint = envVar ? `install it or set ${envVar} (or the harness's command option)` : 'install it';
    if (spawnError.code === 'ENOENT') return `harness executable '${executable}' not found on PATH — ${hint}`;
    if (spawnError.code === 'EACCES')
      return `harness executable '${executable}' is not executable (EACCES) — ${hint}`;
    return `harness executable '${executable}' failed to start: ${spawnError.message}`;
  }
  if (outcome.timedOut) return `harness timed out after ${timeoutMs} ms${killNote(outcome)}`;
  if (outcome.aborted) return `harness run aborted${killNote(outcome)}`;
  return null;
}

function killNote(outcome: ProcessOutcome): string {
  if (!outcome.kill || outcome.kill.action === 'none') return '';
  const how = outcome.kill.action === 'sigkill' ? 'killed with SIGKILL' : 'stopped with SIGTERM';
  return outcome.kill.settled ? `; process group ${how}` : `; process group ${how} but not settled`;
}

export function exitFailure(name: string, outcome: ProcessOutcome): string {
  const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
  const tail = lastLines(outcome.stderr, 3);
  return tail ? `${name} ${how}: ${tail}` : `${name} ${how}`;
}

export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ').slice(0, 500);
}

export function baseResult(outcome: ProcessOutcome): Omit<HarnessRunResult, 'success' | 'text' | 'error'> {
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    conversationId: null,
    usage: null,
    permissionDenials: null,
    budgetExceeded: false,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
  };
}
