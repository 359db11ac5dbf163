import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { withFileLock } from './lock';
import { portableFile, type WorkItemDirs } from './paths';
import { portableRecordSchema, type PortableRecord } from './schemas';

export function readPortable(dirs: WorkItemDirs, slug: string): PortableRecord | null {
  return readJsonIfExists(portableFile(dirs, slug), portableRecordSchema);
}

export function emptyPortable(workItem: string): PortableRecord {
  return {
    schema_version: 1,
    work_item: workItem,
    control: null,
    poll: null,
    graph: null,
    updated_at: new Date().toISOString(),
  };
}

/** Read-modify-write under the file's lock (the GitHub bridge writes `poll` through this too). */
export function updatePortable(
  dirs: WorkItemDirs,
  slug: string,
  workItem: string,
  fn: (current: PortableRecord) => PortableRecord,
): Promise<PortableRecord> {
  const file = portableFile(dirs, slug);
  return withFileLock(file, () => {
    const current = readPortable(dirs, slug) ?? emptyPortable(workItem);
    return writeJsonAtomic(file, portableRecordSchema, {
      ...fn(current),
      updated_at: new Date().toISOString(),
    });
  });
}
