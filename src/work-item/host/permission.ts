import type { PermissionAnswer } from '../../workflows/work-item/messages';
import { appendWorkItemEvent } from '../event-log';
import { HostError, locate, type HostContext } from './context';
import type { ThreadMirror } from '../../channel/mirror';
import type { PromptAnswer } from './pane-state';
import type { WorkItemDirs } from '../paths';
import { parseWorkItemRef, refSlug } from '../ref';
import { mirrorLine, mirrorToThread } from './thread';

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
  const always = answer.decision === 'allow' && answer.always === true;
  const outcome =
    (await ctx.turns?.answerPermission(at.workItem, { decision: answer.decision, message, always })) ??
    'none';
  if (outcome === 'terminal') {
    throw new HostError(
      `the prompt in ${at.workItem}'s pane was answered in the terminal first`,
      'bad-input',
    );
  }
  if (outcome === 'none') {
    throw new HostError(
      `no permission prompt of ${at.workItem} is held for an answer: it was answered in the terminal, or the pane's plugin does not ask the-loop`,
      'bad-input',
    );
  }
  const { decision, by, via, reason } = answer;
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'permission.answered', {
    decision,
    by,
    via,
    reason,
    always,
  });
  // whoever else is asked (the thread) learns that it is answered, and by whom
  const verb = decision === 'allow' ? (always ? 'allowed for this session' : 'allowed') : 'denied';
  mirrorLine(ctx, at.workItem, `${verb} by ${by} (${via})${reason ? `: ${reason}` : ''}`);
}

/**
 * A prompt answered on the worker, not through the workflow: in the terminal first (the worker saw it leave the
 * screen), by permissions.remote, or by permissions.timeout. Recorded with the other answers, and said in the thread,
 * so whoever would answer it elsewhere knows it is answered.
 */
export function recordPromptAnswer(
  dirs: WorkItemDirs,
  mirror: ThreadMirror | null | undefined,
  workItem: string,
  answer: PromptAnswer,
): void {
  let slug: string;
  try {
    slug = refSlug(parseWorkItemRef(workItem));
  } catch {
    return;
  }
  const { decision, by, via, asked } = answer;
  appendWorkItemEvent(dirs, slug, workItem, 'permission.answered', {
    decision,
    by,
    via,
    reason: null,
    asked,
  });
  const what = asked ? `: ${asked}` : '';
  const line =
    via === 'terminal'
      ? `answered in the terminal${what}`
      : `${decision === 'allow' ? 'allowed' : 'denied'} by ${via === 'timeout' ? 'permissions.timeout' : by}${what}`;
  mirrorToThread(mirror, dirs, workItem, line);
}
