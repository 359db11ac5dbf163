import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isErrno } from '../errors';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { withFileLock } from './lock';
import { registryFile, type WorkItemDirs } from './paths';
import { registryRecordSchema, type RegistryRecord } from './schemas';
import { matchesStatus, type ListStatus } from './waiting-view';
import { sortByWorkItem } from './work-item-order';

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
