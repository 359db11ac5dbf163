/** Polls `probe` until it returns something other than null, undefined or false; fails naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
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
