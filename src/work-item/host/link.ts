import { appendWorkItemEvent } from '../event-log';
import { formatRef, parseWorkItemRef } from '../ref';
import { updateRecord } from '../registry';
import { linkPullRequestUpdate } from '../../workflows/work-item/messages';
import { HostError, locate, type HostContext } from './context';
import { hostVerb } from './host-verb';

export interface LinkResult {
  workItem: string;
  pullRequest: string;
  alreadyRecorded: boolean;
  /** A note for stderr when GitHub refused the labels; the link stands anyway. */
  note: string | null;
}

export async function linkPullRequest(
  ctx: HostContext,
  workItem: string,
  pullRequest: string,
): Promise<LinkResult> {
  const at = locate(ctx, workItem);
  const pr = parseWorkItemRef(pullRequest);
  const prRef = formatRef(pr);
  if (prRef === at.workItem) throw new HostError(`${at.workItem} cannot be linked to itself`, 'bad-input');
  let already = false;
  const updated = await updateRecord(at.dirs, at.slug, (current) => {
    if (!current) return null;
    if (current.pull_requests.includes(prRef)) {
      already = true;
      return null;
    }
    return { ...current, pull_requests: [...current.pull_requests, prRef] };
  });
  if (!updated) throw new HostError(`${at.workItem}: no session record on this machine`, 'not-found');
  if (already) return { workItem: at.workItem, pullRequest: prRef, alreadyRecorded: true, note: null };
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'pr.linked', { pull_request: prRef });
  let note: string | null = null;
  const labels = ctx.config.routing.autoExecuteLabels;
  if (labels.length > 0) {
    if (!ctx.github) {
      note = `no GitHub client is configured: add the label(s) ${labels.join(', ')} to ${prRef} by hand`;
    } else {
      try {
        await ctx.github.addLabels({ host: pr.host, owner: pr.owner, repo: pr.repo }, pr.number, labels);
      } catch (err) {
        note = `GitHub refused the label(s) ${labels.join(', ')} on ${prRef} (${(err as Error).message.split('\n')[0]}): add them by hand`;
      }
    }
  }
  return { workItem: at.workItem, pullRequest: prRef, alreadyRecorded: false, note };
}

/** `sessions link-pr` through a running session (the GitHub bridge's link, too). */
export const linkPullRequestVerb = hostVerb(linkPullRequestUpdate, (ctx, workItem, { pullRequest }) =>
  linkPullRequest(ctx, workItem, pullRequest),
);
