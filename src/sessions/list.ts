import { resolve } from 'node:path';
import { workItemDirs } from '../work-item/paths';
import { listRecords, type ListedRecords } from '../work-item/registry';
import type { RecordStatus } from '../work-item/schemas';
import type { SessionsContext } from './context';

export interface SessionList extends ListedRecords {
  registryDir: string;
}

/** The registry's records (a file-only read: no Temporal, no host layer), filtered by status when one is given. */
export async function listSessions(ctx: SessionsContext, status?: RecordStatus): Promise<SessionList> {
  const { registryDir } = workItemDirs(ctx.config, ctx.stateDir, {
    registryDir: ctx.registryDir ? resolve(ctx.registryDir) : null,
    portableDir: ctx.portableDir ? resolve(ctx.portableDir) : null,
  });
  return { registryDir, ...listRecords(registryDir, status) };
}
