import type { TheLoopConfig } from '../config/schema';
import { environmentDrift } from './host/index';
import { workItemDirs } from './paths';
import { listRecords } from './registry';

/**
 * The one line `the-loop status` prints when running sessions hold a forwarded value that differs, or a name
 * they must not hold; null (print nothing) when they do not.
 */
export async function staleEnvironmentLine(config: TheLoopConfig, stateDir: string): Promise<string | null> {
  try {
    const { records } = listRecords(workItemDirs(config, stateDir).registryDir);
    const drift = await environmentDrift({ config, stateDir }, records);
    if (drift.stale.length === 0) return null;
    return `sessions ${drift.stale.length} of ${drift.running} running with a stale environment — \`the-loop sessions restart --all\``;
  } catch {
    return null;
  }
}
