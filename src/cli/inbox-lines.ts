// How `the-loop inbox` (and `sessions show`) print waits: ages, one-line cells safe for a terminal.
import type { InboxEntry } from '../use-cases/inbox';
import { costCell } from '../work-item/spent-view';
import { toTheSecond } from '../work-item/waiting-view';

/** "45s", "12m", "3h05m", "2d04h": how long ago `since` was. */
export function age(since: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** "since 2026-12-02T14:35:11Z (42m)": since when a wait has lasted, as every view says it. */
export function sinceText(since: string, now: number): string {
  return `since ${toTheSecond(since)} (${age(since, now)})`;
}

/** Control characters (a newline, ESC) never reach the terminal raw: each is shown as `?`. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- these are exactly what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const INBOX_TITLES = ['SINCE', 'WAITED', 'REASON', 'SESSION', 'COST', 'ASKED'];

/** One row of the inbox table. */
export function inboxRow(entry: InboxEntry, now: number): string[] {
  return [
    toTheSecond(entry.since),
    age(entry.since, now),
    entry.reason,
    printable(entry.session),
    entry.spent ? costCell(entry.spent.cost_usd, entry.spent.unpriced) : '-',
    printable(clip(entry.detail, 100)),
  ];
}

/** A wait that ended, for `--follow`. */
export function endedLine(entry: InboxEntry, now: number): string {
  return `answered: ${printable(entry.session)} no longer waits (${entry.reason}, after ${age(entry.since, now)})`;
}

/** A wait that began, for `--follow`. */
export function beganLine(entry: InboxEntry, now: number): string {
  return `waiting: ${inboxRow(entry, now).join('  ')} — ${printable(entry.next)}`;
}
