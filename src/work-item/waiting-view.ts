// How a registry record's wait for a person is shown: one vocabulary for `sessions list`, `sessions show` and `inbox`.
import type { RecordStatus, RegistryRecord, Waiting } from './schemas';

/** What `sessions list --status` selects: a record status, or `waiting` (an open session that needs a person). */
export type ListStatus = RecordStatus | 'waiting';

/** What a record's wait is told from: a whole record, or what a list keeps of one. */
type WithWait = Pick<RegistryRecord, 'status' | 'waiting'>;

/** The record's wait, when it is open: a closed session waits for nobody, whatever it last recorded. */
export function openWait(record: WithWait): Waiting | null {
  return record.status === 'closed' ? null : (record.waiting ?? null);
}

/** `waiting: permission` while a person is needed, else the record's status. */
export function shownStatus(record: WithWait): string {
  const wait = openWait(record);
  return wait ? `waiting: ${wait.reason}` : record.status;
}

/** An ISO time to the second, as every view of a wait shows it: `2026-12-02T11:48:30Z`. */
export function toTheSecond(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** Since when the session has waited (the recorded ISO time, to the second), or null. */
export function waitingSince(record: WithWait): string | null {
  const wait = openWait(record);
  return wait ? toTheSecond(wait.since) : null;
}

export function matchesStatus(record: WithWait, status: ListStatus | undefined): boolean {
  if (status === undefined) return true;
  if (status === 'waiting') return openWait(record) !== null;
  return record.status === status;
}
