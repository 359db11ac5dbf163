import { withMarker } from '../../github/marker';
import { appendWorkItemEvent } from '../event-log';
import { updatePortable } from '../portable';
import { updateRecord } from '../registry';
import type { ControlCommand } from '../schemas';
import { locate, type HostContext } from './context';

export interface RecordControlInput {
  workItem: string;
  command: ControlCommand;
  by: string;
  via: 'cli' | 'comment' | 'closure' | 'board';
}

export async function recordControl(ctx: HostContext, input: RecordControlInput): Promise<void> {
  const at = locate(ctx, input.workItem);
  const entry = { command: input.command, at: new Date().toISOString(), by: input.by, via: input.via };
  const armed = input.command === 'start' || input.command === 'resume' || input.command === 'pause';
  await updatePortable(at.dirs, at.slug, at.workItem, (p) => ({
    ...p,
    control: { armed, last: entry, history: [...(p.control?.history ?? []), entry].slice(-50) },
    ...(input.command === 'cleanup' ? { graph: { ...(p.graph ?? {}), node: 'cleanup', at: entry.at } } : {}),
  }));
  await updateRecord(at.dirs, at.slug, (current) =>
    current
      ? {
          ...current,
          last_control: { command: input.command, at: entry.at },
          status:
            input.command === 'pause'
              ? 'paused'
              : input.command === 'resume' || input.command === 'start'
                ? 'active'
                : current.status,
        }
      : null,
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'control.recorded', { ...entry });
}

export interface CommentResult {
  posted: boolean;
  /** A warning for stderr: a missing client or a failing post never undoes the local action. */
  warning: string | null;
  url: string | null;
}

/** Posts the keyword comment with the loop-prevention marker; best effort. */
export async function postKeywordComment(
  ctx: HostContext,
  workItem: string,
  command: ControlCommand,
): Promise<CommentResult> {
  const at = locate(ctx, workItem);
  const keyword = `the-loop ${command}`;
  if (!ctx.github) {
    return {
      posted: false,
      warning: `not commented '${keyword}' on ${at.workItem}: no GitHub client is configured (no token)`,
      url: null,
    };
  }
  try {
    const posted = await ctx.github.postComment(
      { host: at.ref.host, owner: at.ref.owner, repo: at.ref.repo },
      at.ref.number,
      withMarker(keyword),
    );
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.posted', { keyword, url: posted.url });
    return { posted: true, warning: null, url: posted.url };
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0] ?? 'error';
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.failed', { keyword, reason });
    return {
      posted: false,
      warning: `could not comment '${keyword}' on ${at.workItem}: ${reason}`,
      url: null,
    };
  }
}
