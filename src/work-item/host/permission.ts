import type { PermissionAnswer } from '../../workflows/work-item-messages';
import { appendWorkItemEvent } from '../event-log';
import { HostError, locate, type HostContext } from './context';

/**
 * A person's answer to the permission prompt the session's pane holds: the PermissionRequest hook that waits on this
 * worker gets it as its decision, and the work item's event log records who answered, from where. Fails when no
 * prompt is held here (answered in the terminal first, or never asked through the hook).
 */
export async function answerPermission(
  ctx: HostContext,
  workItem: string,
  answer: PermissionAnswer,
): Promise<void> {
  const at = locate(ctx, workItem);
  const message =
    answer.decision === 'deny' ? (answer.reason ?? `denied by ${answer.by} through the-loop`) : null;
  const held =
    (await ctx.turns?.answerPermission(at.workItem, { decision: answer.decision, message })) ?? false;
  if (!held) {
    throw new HostError(
      `no permission prompt of ${at.workItem} is held for an answer: it was answered in the terminal, or the pane's plugin does not ask the-loop`,
      'bad-input',
    );
  }
  const { decision, by, via, reason } = answer;
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'permission.answered', { decision, by, via, reason });
}
