// Pure rule for how often a goal session's search attributes go out. Runs inside workflow code: no imports.

/**
 * Search attributes are for finding sessions, not a live feed, and each upsert is a history event and a visibility
 * write: through a run of fast turns the iteration and cost go out at most once a second. Status changes and the
 * final values always go out at once.
 */
export const SEARCH_ATTRIBUTE_REFRESH_MS = 1000;

/** What went out last, and when (workflow time). */
export interface PublishedAttributes {
  atMs: number;
  status: string | null;
}

export const NOTHING_PUBLISHED: PublishedAttributes = { atMs: Number.NEGATIVE_INFINITY, status: null };

/** Whether a turn's start publishes the attributes: the status changed, or the last upsert is a second old. */
export function searchAttributesDue(last: PublishedAttributes, status: string, nowMs: number): boolean {
  return last.status !== status || nowMs - last.atMs >= SEARCH_ATTRIBUTE_REFRESH_MS;
}
