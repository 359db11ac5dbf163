import { answerWorkItemGate, answerWorkItemPermission, updateFailureMessage } from '../temporal/work-items';
import type { PermissionAnswerReport } from '../workflows/work-item-messages';
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

/**
 * `sessions answer allow|deny`: the local user answers the permission prompt a work item's pane shows, as if at its
 * terminal. The workflow refuses it when no prompt waits, and the host when the terminal answered first.
 */
export async function answerPermissionPrompt(
  ctx: SessionsContext,
  workItemText: string,
  answer: { decision: 'allow' | 'deny'; reason: string | null },
): Promise<PermissionAnswerReport> {
  const workItem = canonicalWorkItem(workItemText);
  const report = await withTemporal(ctx, async (client) => {
    try {
      return await answerWorkItemPermission(client, workItem, {
        ...answer,
        by: localUser(),
        via: 'cli',
        // the local user runs the-loop on this machine: the same trust as every other CLI verb
        authorized: true,
      });
    } catch (error) {
      throw new CliError(
        `${answer.decision} ${workItem} refused: ${updateFailureMessage(error)}`,
        EXIT.failure,
      );
    }
  });
  if (report === null) {
    throw new CliError(`${workItem}: no running session — nothing waits for an answer`, EXIT.failure);
  }
  return report;
}
