import type { Section } from './rows';

/** A row as the page holds it: its HTML (a <tr>), the list it is in, and where in that list. */
export interface RenderedRow {
  id: string;
  section: Section;
  sort: string;
  html: string;
}

/** What one live update sends: the rows that are new or changed, and the ids of the rows that went. */
export interface RowChanges {
  upsert: RenderedRow[];
  remove: string[];
}

/** The changes from `before` to `after`: only rows whose HTML, list or place changed, never the whole list. */
export function diffRows(
  before: ReadonlyMap<string, RenderedRow>,
  after: ReadonlyMap<string, RenderedRow>,
): RowChanges {
  const upsert: RenderedRow[] = [];
  const remove: string[] = [];
  for (const [id, row] of after) {
    const old = before.get(id);
    if (!old || old.html !== row.html || old.section !== row.section || old.sort !== row.sort)
      upsert.push(row);
  }
  for (const id of before.keys()) if (!after.has(id)) remove.push(id);
  return { upsert, remove };
}

export function isEmpty(changes: RowChanges): boolean {
  return changes.upsert.length === 0 && changes.remove.length === 0;
}

/** The rows by id, in page order (a Map keeps insertion order). */
export function byId(rows: readonly RenderedRow[]): Map<string, RenderedRow> {
  return new Map(rows.map((row) => [row.id, row]));
}
