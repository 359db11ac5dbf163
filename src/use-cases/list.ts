import { readdirSync } from 'node:fs';
import { workItemDirs } from '../work-item/paths';
import { readPortable } from '../work-item/portable';
import { listRecordRows, listRecords, type ListedRecords } from '../work-item/registry';
import type { ListedRecord, RegistryRecord } from '../work-item/schemas';
import type { ListStatus } from '../work-item/waiting-view';
import type { SessionsContext } from './context';

export interface SessionList<R extends ListedRecord = RegistryRecord> {
  records: R[];
  /** Files in the registry directory that are not valid records: named, never fatal. */
  invalid: ListedRecords['invalid'];
  registryDir: string;
  /** Each listed work item's node in its process graph (the portable record's pointer); null without one. */
  nodes: Map<string, string | null>;
}

/** The registry's records (a file-only read: no Temporal, no host layer), filtered by status when one is given. */
export function listSessions(ctx: SessionsContext, status?: ListStatus): Promise<SessionList> {
  return withNodes(ctx, (registryDir) => listRecords(registryDir, status));
}

/** The same as `sessions list` shows it: what it keeps of each record, through its list cache. */
export function listSessionRows(
  ctx: SessionsContext,
  status?: ListStatus,
): Promise<SessionList<ListedRecord>> {
  return withNodes(ctx, (registryDir) => listRecordRows(registryDir, status));
}

async function withNodes<R extends ListedRecord>(
  ctx: SessionsContext,
  read: (registryDir: string) => { records: R[]; invalid: ListedRecords['invalid'] },
): Promise<SessionList<R>> {
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const listed = read(dirs.registryDir);
  const nodes = new Map<string, string | null>();
  const portable = fileNames(dirs.portableDir);
  for (const record of listed.records) {
    let node: string | null = null;
    try {
      // one directory read instead of a failed open per session without a portable record (most of them)
      if (portable.has(`${record.slug}.json`)) node = readPortable(dirs, record.slug)?.graph?.node ?? null;
    } catch {
      // an unreadable portable record shows no node; the list itself does not fail on it
    }
    nodes.set(record.work_item, node);
  }
  return { registryDir: dirs.registryDir, nodes, ...listed };
}

function fileNames(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return new Set();
  }
}
