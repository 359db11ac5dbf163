import { reportWorkItemOutcome, updateFailureMessage } from '../temporal/work-items';
import type { NodeReport } from '../workflows/work-item/process-messages';
import { CliError, EXIT } from '../errors';
import { canonicalWorkItem, localUser, withTemporal, type SessionsContext } from './context';

/**
 * `sessions outcome`: the agent (or a person) says how the work item's current agent node ended, which moves it
 * along its process graph. The workflow refuses an outcome for a node it is not at.
 */
export async function reportOutcome(
  ctx: SessionsContext,
  workItemText: string,
  report: { outcome: 'success' | 'failure'; node: string | null },
): Promise<NodeReport> {
  const workItem = canonicalWorkItem(workItemText);
  const result = await withTemporal(ctx, async (client) => {
    try {
      return await reportWorkItemOutcome(client, workItem, { ...report, by: localUser() });
    } catch (error) {
      throw new CliError(
        `${report.outcome} ${workItem} refused: ${updateFailureMessage(error)}`,
        EXIT.failure,
      );
    }
  });
  if (result === null) {
    throw new CliError(`${workItem}: no running session — no node to report on`, EXIT.failure);
  }
  return result;
}
