type Maybe<T> = T | null | undefined | false;

/**
 * Polls `probe` every `everyMs` until it returns a truthy value, and returns that value; fails naming `what` once
 * `timeoutMs` has passed. Empty strings and 0 count as "not yet": a file that exists but is still empty is not read.
 * The one way the tests wait for something: `waitFor('the harness to start', () => …, 60_000)`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<Maybe<T>> | Maybe<T>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * "Nothing happens for `ms`": polls `probe` every `everyMs` for the whole period and fails naming `what` as soon as
 * it returns false. For asserting that something did NOT happen, in place of sleeping and then looking once:
 * `await staysTrue('no second turn', () => turns() === 1, 2_000)`.
 */
export async function staysTrue(
  what: string,
  probe: () => Promise<boolean> | boolean,
  ms: number,
  everyMs = 50,
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await probe())) throw new Error(`expected ${what} for ${ms} ms, but it stopped holding`);
    if (Date.now() >= end) return;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, Math.max(0, end - Date.now()))));
  }
}

/**
 * A query's answer, or null when no worker answered it yet: right after a worker (re)starts the server may still
 * see no poller (FAILED_PRECONDITION), and on a loaded machine a query can time out (DEADLINE_EXCEEDED). A probe
 * asks again; any other failure is the test's.
 */
export async function queryAnswer<T>(query: () => Promise<T>): Promise<T | null> {
  try {
    return await query();
  } catch (error) {
    const said = `${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`;
    if (/FAILED_PRECONDITION|DEADLINE_EXCEEDED/.test(said)) return null;
    throw error;
  }
}
