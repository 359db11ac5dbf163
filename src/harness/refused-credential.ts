import { join } from 'node:path';
import { followJsonl } from '../session/jsonl';
import type { HarnessRunRequest } from './types';

/** A model call the model API refused for its credential: its HTTP status and what the API said. */
export interface AuthFailure {
  status: number;
  error: string;
}

/** Statuses an agent CLI retries that no retry can mend: the credential is wrong. */
export const AUTH_STATUSES = [401, 403];

/**
 * Watches a run's JSONL output (stdout.txt) while it runs: at the first line `refusal` takes for a model call refused
 * for its credential, the run is stopped, instead of letting the CLI retry (claude: ten times over about three
 * minutes; codex: five reconnects). The request's signal is aborted then, as a stop's would be: the adapter tells the
 * two apart by its own stdout (the refusal is there) and by the session's signal.
 */
export function stopOnRefusedCredential(
  req: HarnessRunRequest,
  refusal: (line: unknown) => AuthFailure | null,
): { request: HarnessRunRequest; stop: () => void } {
  const watching = new AbortController();
  const refused = new AbortController();
  void followJsonl(
    join(req.outputDir, 'stdout.txt'),
    (line) => {
      if (!refused.signal.aborted && refusal(line)) refused.abort();
    },
    // 250 ms for the run's first 30 s, when its first model calls are made and a refusal comes, and while it writes;
    // a run quiet after that (a long think, a wait on a person) is looked at every 4 s, so that thousands of live
    // turns on a worker do not cost it thousands of stat calls a second
    { signal: watching.signal, pollMs: 250, maxPollMs: 4000, backOffAfterMs: 30_000 },
  ).catch(() => undefined);
  const signal = req.signal ? AbortSignal.any([req.signal, refused.signal]) : refused.signal;
  return { request: { ...req, signal }, stop: () => watching.abort() };
}

/**
 * The first line of a run's JSONL output that `refusal` takes for a refused credential, or null. Only lines that
 * contain `mention` (what every such line carries) are parsed: a run's output is mostly other events.
 */
export function firstRefusal(
  stdout: string,
  mention: string,
  refusal: (line: unknown) => AuthFailure | null,
): AuthFailure | null {
  for (const line of stdout.split('\n')) {
    if (!line.includes(mention)) continue;
    try {
      const failure = refusal(JSON.parse(line));
      if (failure) return failure;
    } catch {
      // a torn line: not a report
    }
  }
  return null;
}

/** What a credential the model API refused says, with the variable to fix. */
export function authFailureMessage(name: string, failure: AuthFailure, credential: string): string {
  return `${name}: the model API refused the credential (${failure.status} ${failure.error}): check ${credential} in the harness's environment (harness.${name}.env, env.file); the turn was stopped at the first refusal instead of retrying`;
}
