import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isErrno } from '../errors';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { listCacheFormat, readThroughListCache, type ListCacheFormat } from '../session/list-cache';
import { withFileLock } from './lock';
import { registryFile, type WorkItemDirs } from './paths';
import { listedRecordSchema, registryRecordSchema, type ListedRecord, type RegistryRecord } from './schemas';
import { matchesStatus, type ListStatus } from './waiting-view';
import { sortByWorkItem } from './work-item-order';

/** The cache of `sessions list`'s rows, beside the records (a hidden file: not a record). */
const recordRows = listCacheFormat('sessions-list/1', listedRecordSchema.nullable());

export function readRecord(dirs: WorkItemDirs, slug: string): RegistryRecord | null {
  return readJsonIfExists(registryFile(dirs, slug), registryRecordSchema);
}

export function writeRecord(dirs: WorkItemDirs, record: RegistryRecord): RegistryRecord {
  return writeJsonAtomic(registryFile(dirs, record.slug), registryRecordSchema, record);
}

/** Read-modify-write under the record's lock; `fn` returning null leaves the file as it is. */
export function updateRecord(
  dirs: WorkItemDirs,
  slug: string,
  fn: (current: RegistryRecord | null) => RegistryRecord | null,
): Promise<RegistryRecord | null> {
  const file = registryFile(dirs, slug);
  return withFileLock(file, () => {
    const next = fn(readRecord(dirs, slug));
    if (next === null) return readRecord(dirs, slug);
    return writeJsonAtomic(file, registryRecordSchema, { ...next, updated_at: new Date().toISOString() });
  });
}

export function deleteRecord(dirs: WorkItemDirs, slug: string): Promise<boolean> {
  const file = registryFile(dirs, slug);
  return withFileLock(file, () => {
    try {
      rmSync(file);
      return true;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
  });
}

export interface ListedRecords {
  records: RegistryRecord[];
  /** Files in the directory that are not valid records: named, never fatal. */
  invalid: { file: string; error: string }[];
}

/** The record files in the registry directory, by name (hidden files, such as a list cache, are not records). */
export function recordFileNames(registryDir: string): string[] {
  try {
    return readdirSync(registryDir).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
}

/**
 * What `project` keeps of each registry record (null: nothing to show), read through a list cache beside the records
 * (`cacheName`, a hidden file: not a record), and the files that are not valid records.
 */
export function projectRecords<T>(
  registryDir: string,
  format: ListCacheFormat<T | null>,
  cacheName: string,
  project: (record: RegistryRecord) => T | null,
): { values: T[]; invalid: ListedRecords['invalid'] } {
  // resolved once, then joined by hand: no join's normalizing, a thousand times
  const dir = resolve(registryDir);
  const listed = readThroughListCache(
    format,
    `${dir}/${cacheName}`,
    recordFileNames(dir).map((name) => ({ name, file: `${dir}/${name}` })),
    (name) => {
      const record = readJsonIfExists(`${dir}/${name}`, registryRecordSchema);
      return record && project(record); // null also for a record removed since the directory was read
    },
  );
  const values: T[] = [];
  const invalid: ListedRecords['invalid'] = [];
  for (const { name, value, error } of listed) {
    if (error !== undefined) invalid.push({ file: `${dir}/${name}`, error: (error as Error).message });
    else if (value) values.push(value);
  }
  return { values, invalid };
}

/** The registry's records as `sessions list` shows them: what it keeps of each, in the list cache, by work item. */
export function listRecordRows(
  registryDir: string,
  status?: ListStatus,
): { records: ListedRecord[]; invalid: ListedRecords['invalid'] } {
  const { values, invalid } = projectRecords(registryDir, recordRows, '.list-cache.json', (record) => record);
  return { records: sortByWorkItem(values.filter((record) => matchesStatus(record, status))), invalid };
}

export function listRecords(registryDir: string, status?: ListStatus): ListedRecords {
  const records: RegistryRecord[] = [];
  const invalid: ListedRecords['invalid'] = [];
  for (const name of recordFileNames(registryDir)) {
    const file = join(registryDir, name);
    try {
      const record = readJsonIfExists(file, registryRecordSchema);
      if (record && matchesStatus(record, status)) records.push(record);
    } catch (err) {
      invalid.push({ file, error: (err as Error).message });
    }
  }
  return { records: sortByWorkItem(records), invalid };
}
