import { answerWorkItemGate, updateFailureMessage } from '../temporal/work-items';
import type { NodeReport } from '../workflows/work-item-process-messages';
import { CliError, EXIT } from '../errors';
import { canonicalWorkItem, localUser, withTemporal, type SessionsContext } from './context';

/**
 * `sessions answer`: the local user answers the gate a work item waits at, as an authorized comment keyword
 * would. The workflow refuses a stale answer (no gate waiting, or it moved on).
 */
export async function answerGate(
  ctx: SessionsContext,
  workItemText: string,
  answer: { answer: 'approve' | 'reject'; reason: string | null },
): Promise<NodeReport> {
  const workItem = canonicalWorkItem(workItemText);
  const report = await withTemporal(ctx, async (client) => {
    try {
      return await answerWorkItemGate(client, workItem, {
        ...answer,
        by: localUser(),
        via: 'cli',
        // the local user runs the-loop on this machine: the same trust as every other CLI verb
        authorized: true,
      });
    } catch (error) {
      throw new CliError(
        `${answer.answer} ${workItem} refused: ${updateFailureMessage(error)}`,
        EXIT.failure,
      );
    }
  });
  if (report === null) {
    throw new CliError(`${workItem}: no running session — nothing waits for an answer`, EXIT.failure);
  }
  return report;
}
