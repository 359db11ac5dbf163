// How a registry record's wait for a person is shown: one vocabulary for `sessions list`, `sessions show` and `inbox`.
import type { RecordStatus, RegistryRecord, Waiting } from './schemas';

/** What `sessions list --status` selects: a record status, or `waiting` (an open session that needs a person). */
export type ListStatus = RecordStatus | 'waiting';

/** The record's wait, when it is open: a closed session waits for nobody, whatever it last recorded. */
export function openWait(record: RegistryRecord): Waiting | null {
  return record.status === 'closed' ? null : (record.waiting ?? null);
}

/** `waiting: permission` while a person is needed, else the record's status. */
export function shownStatus(record: RegistryRecord): string {
  const wait = openWait(record);
  return wait ? `waiting: ${wait.reason}` : record.status;
}

/** An ISO time to the second, as every view of a wait shows it: `2026-12-02T11:48:30Z`. */
export function toTheSecond(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** Since when the session has waited (the recorded ISO time, to the second), or null. */
export function waitingSince(record: RegistryRecord): string | null {
  const wait = openWait(record);
  return wait ? toTheSecond(wait.since) : null;
}

export function matchesStatus(record: RegistryRecord, status: ListStatus | undefined): boolean {
  if (status === undefined) return true;
  if (status === 'waiting') return openWait(record) !== null;
  return record.status === status;
}
