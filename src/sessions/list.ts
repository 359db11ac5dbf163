import { hostDirs } from '../work-item/host';
import { listRecords, type ListedRecords } from '../work-item/registry';
import type { RecordStatus } from '../work-item/schemas';
import { hostContext, type SessionsContext } from './context';

export interface SessionList extends ListedRecords {
  registryDir: string;
}

/** The registry's records (a file-only read: no Temporal), filtered by status when one is given. */
export async function listSessions(ctx: SessionsContext, status?: RecordStatus): Promise<SessionList> {
  const { registryDir } = await hostDirs(hostContext(ctx));
  return { registryDir, ...listRecords(registryDir, status) };
}
