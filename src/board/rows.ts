import type { RegistryRecord, Waiting } from '../work-item/schemas';
import { openWait } from '../work-item/waiting-view';

/** The board's four lists, in page order. */
export const SECTIONS = ['needs', 'running', 'queued', 'ended'] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_TITLES: Record<Section, string> = {
  needs: 'Needs you',
  running: 'Running',
  queued: 'Queued',
  ended: 'Recently ended',
};

/** How many ended sessions the board shows: the most recently ended. */
export const RECENTLY_ENDED = 50;

/** One row of the board: a work item or a goal session, as a person deciding what to do about it reads it. */
export interface BoardRow {
  /** Unique on the page and stable across updates: `w-<slug>` or `g-<session id>`. */
  id: string;
  kind: 'work-item' | 'goal';
  section: Section;
  /** Where the row sits in its list (ascending). */
  sort: string;
  /** The work item's ref, or the goal session's id. */
  session: string;
  /** The goal's first line (goal sessions). */
  goal: string | null;
  status: string;
  waiting: Waiting | null;
  node: string | null;
  turns: number;
  /** The last turn's reply, its first line. */
  summary: string | null;
  cost: { usd: number; unpriced: boolean } | null;
  budget: number | null;
  pullRequests: string[];
  /** Since when the row is in its state: the wait, the end, the last update. */
  since: string;
  webUi: string | null;
  sessionDir: string;
  /** `tmux -L <socket> attach -t <session>`, while a pane is recorded. */
  attach: string | null;
  /** The host whose worker runs the session's turns (its host queue's id); null when not recorded. */
  host: string | null;
}

/** What a work item's row is made of besides its record. */
export interface WorkItemFacts {
  node: string | null;
  summary: string | null;
  budget: number | null;
  webUi: string | null;
  host: string | null;
}

/** The board's section of a work item: waiting for a person, ended, not yet spawned, or running. */
export function workItemSection(record: RegistryRecord): Section {
  if (openWait(record)) return 'needs';
  if (record.status === 'closed') return 'ended';
  if (!record.tmux && !record.spent) return 'queued';
  return 'running';
}

/** The row of one work item. */
export function workItemRow(record: RegistryRecord, facts: WorkItemFacts): BoardRow {
  const waiting = openWait(record);
  const section = workItemSection(record);
  const since =
    waiting?.since ?? (section === 'ended' ? (record.closed_at ?? record.updated_at) : record.updated_at);
  return {
    id: `w-${record.slug}`,
    kind: 'work-item',
    section,
    sort: sortKey(section, since, record.work_item),
    session: record.work_item,
    goal: null,
    status: workItemStatus(record, section, waiting),
    waiting,
    node: facts.node,
    turns: record.spent?.last_counted.iteration ?? 0,
    summary: facts.summary,
    cost: record.spent
      ? { usd: record.spent.usage.cost_usd, unpriced: record.spent.unpriced_models.length > 0 }
      : null,
    budget: facts.budget,
    pullRequests: record.pull_requests,
    since,
    webUi: facts.webUi,
    sessionDir: record.session_dir,
    attach:
      record.tmux && record.status !== 'closed'
        ? `tmux -L ${record.tmux.socket} attach -t '=${record.tmux.session}'`
        : null,
    host: facts.host,
  };
}

/** A work item's status in the board's words: its wait, or what its section says of an open one. */
function workItemStatus(record: RegistryRecord, section: Section, waiting: Waiting | null): string {
  if (waiting) return `waiting: ${waiting.reason}`;
  if (record.status !== 'active') return record.status;
  return section === 'queued' ? 'queued' : 'running';
}

/**
 * Where a row sits: waits oldest first, ended ones newest first, the others by ref. Ended rows sort by the
 * complement of their time's characters, so an ascending sort puts the newest first.
 */
export function sortKey(section: Section, since: string, session: string): string {
  if (section === 'needs') return `${since} ${session}`;
  if (section === 'ended') {
    const inverted = [...since].map((c) => String.fromCharCode(0xffff - c.charCodeAt(0))).join('');
    return `${inverted} ${session}`;
  }
  return session;
}

/** The rows in page order: by section, then by sort key; only the most recently ended of the ended ones. */
export function orderRows(rows: BoardRow[]): BoardRow[] {
  const sorted = [...rows].sort(
    (a, b) =>
      SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section) ||
      (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0),
  );
  let ended = 0;
  return sorted.filter((row) => row.section !== 'ended' || ++ended <= RECENTLY_ENDED);
}

/**
 * The first line of a reply as plain text, shortened: what a row shows of the last turn. Markdown's marks (a
 * heading's or a list item's lead, emphasis, code ticks) are dropped; the session page renders the whole reply.
 */
export function oneLine(text: string | null, max = 140): string | null {
  const line = text
    ?.split('\n')
    .map((l) =>
      l
        .trim()
        .replace(/^(#{1,6}|[-*+]|\d+[.)])\s+/, '')
        .replace(/(\*\*|__|`)/g, '')
        .trim(),
    )
    .find((l) => l !== '');
  if (!line) return null;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
