import type { Client } from '@temporalio/client';
import { answerWorkItemGate, answerWorkItemPermission, updateFailureMessage } from '../temporal/work-items';
import type { PermissionAnswerReport } from '../workflows/work-item/messages';
import type { NodeReport } from '../workflows/work-item/process-messages';
import { CliError, EXIT } from '../errors';
import { canonicalWorkItem, localUser, withTemporal, type SessionsContext } from './context';

/** Who answers, and from where: the CLI's local user, or the board (which authorizes its requests as the CLI does). */
export interface Answerer {
  by: string;
  via: 'cli' | 'board';
}

/** Who answers from the CLI: the local user runs the-loop on this machine, the same trust as every other CLI verb. */
const fromThisTerminal = (): Answerer => ({ by: localUser(), via: 'cli' });

/**
 * One answer from the CLI, sent to the work item's workflow by `send`: a refusal (nothing waits for it, or it was
 * answered first elsewhere) is one line naming the answer, and so is a work item with no running session.
 */
async function answerThroughWorkflow<T>(
  ctx: SessionsContext,
  workItemText: string,
  answer: string,
  send: (client: Client, workItem: string) => Promise<T | null>,
): Promise<T> {
  const workItem = canonicalWorkItem(workItemText);
  const report = await withTemporal(ctx, async (client) => {
    try {
      return await send(client, workItem);
    } catch (error) {
      throw new CliError(`${answer} ${workItem} refused: ${updateFailureMessage(error)}`, EXIT.failure);
    }
  });
  if (report === null) {
    throw new CliError(`${workItem}: no running session — nothing waits for an answer`, EXIT.failure);
  }
  return report;
}

/**
 * `sessions answer approve|reject`: the local user answers the gate a work item waits at, as an authorized comment
 * keyword would. The workflow refuses a stale answer (no gate waiting, or it moved on).
 */
export function answerGate(
  ctx: SessionsContext,
  workItemText: string,
  answer: { answer: 'approve' | 'reject'; reason: string | null },
  answerer: Answerer = fromThisTerminal(),
): Promise<NodeReport> {
  return answerThroughWorkflow(ctx, workItemText, answer.answer, (client, workItem) =>
    answerWorkItemGate(client, workItem, { ...answer, ...answerer, authorized: true }),
  );
}

/**
 * `sessions answer allow|deny`: the local user answers the permission prompt a work item's pane shows, as if at its
 * terminal. The workflow refuses it when no prompt waits, and the host when the terminal answered first.
 */
export function answerPermissionPrompt(
  ctx: SessionsContext,
  workItemText: string,
  answer: { decision: 'allow' | 'deny'; reason: string | null; always: boolean },
  answerer: Answerer = fromThisTerminal(),
): Promise<PermissionAnswerReport> {
  return answerThroughWorkflow(ctx, workItemText, answer.decision, (client, workItem) =>
    answerWorkItemPermission(client, workItem, { ...answer, ...answerer, authorized: true }),
  );
}
