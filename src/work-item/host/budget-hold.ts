import { workItemBudgetWait } from '../../budget/wait';
import type { RegistryRecord } from '../schemas';
import type { HostContext, Located } from './context';

/** A reached budget (the work item's or the fleet's) holds the next turn back: the event stays queued. */
export function budgetHold(
  ctx: HostContext,
  at: Located,
  record: RegistryRecord,
): { outcome: 'budget'; reason: string } | null {
  const spent = record.spent?.usage.cost_usd ?? 0;
  const wait = workItemBudgetWait(ctx.config, at.dirs.stateRoot, at.workItem, spent);
  return wait ? { outcome: 'budget', reason: wait.detail } : null;
}
