import { declaredEnvironment, fingerprint } from '../work-item/env';
import { hostDirs } from '../work-item/host';
import { RefError } from '../work-item/ref';
import { listRecords } from '../work-item/registry';
import { parseRefList } from '../work-item/reset';
import { CliError, EXIT, usageError } from '../errors';
import { hostContext, type SessionsContext } from './context';
import type { WorkItemSelection } from './context';

export interface RestartScope {
  workItems: string[];
  forwarded: { name: string; fingerprint: string }[];
  keptOut: string[];
  /** Credential names refused in env.sessionPassthrough (kept out instead). */
  refused: string[];
}

/**
 * Which sessions a restart relaunches, onto which declared environment. Refuses when nothing is declared:
 * there is no environment to roll onto.
 */
export async function restartScope(
  ctx: SessionsContext,
  selection: WorkItemSelection,
): Promise<RestartScope> {
  let workItems: string[];
  try {
    workItems = selection.all ? [] : await parseRefList(selection.workItems);
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
  const declared = declaredEnvironment(ctx.config);
  if (!declared.declared) {
    throw new CliError(
      'refusing to restart: neither env.file nor env.sessionPassthrough is configured — there is no declared environment to roll onto',
      EXIT.failure,
    );
  }
  if (selection.all) {
    const { registryDir } = await hostDirs(hostContext(ctx));
    workItems = (await listRecords(registryDir)).records
      .filter((r) => r.status !== 'closed')
      .map((r) => r.work_item);
  }
  return {
    workItems,
    forwarded: declared.forwarded.map((f) => ({ name: f.name, fingerprint: fingerprint(f.value) })),
    keptOut: declared.keptOut,
    refused: declared.refused,
  };
}
