import { withMarker } from '../github/marker';
import type { TheLoopConfig } from '../config/schema';
import { errorLine } from '../errors';
import type { GitHubClient } from '../github/api';
import { parseWorkItemRef } from '../work-item/ref';
import type { PaneWaitReason } from '../workflows/work-item/messages';

/** The comment that says what a session waits for, and how to answer it from here. */
export function waitingCommentBody(workItem: string, kind: PaneWaitReason, message: string): string {
  const attach = `\`the-loop sessions attach --work-item ${workItem}\``;
  const how: Record<PaneWaitReason, string> = {
    question: `Answer it with a comment here (it is the session's next turn), or in the session: ${attach}.`,
    permission: `Answer it with a comment \`the-loop allow\` or \`the-loop deny <reason>\`, or in the session: ${attach}.`,
    stuck: `Look at the session: ${attach}.`,
  };
  const what = kind === 'question' ? 'asks' : 'is waiting for a human';
  return withMarker(`the-loop: the session of ${workItem} ${what} — ${message}\n\n${how[kind]}`);
}

/**
 * github.announceWaits (and, for permission prompts, the older routing.waitingComment): one comment on a GitHub work
 * item when its session starts to wait for a human in its pane. Best effort: a failure, or a worker without GitHub
 * credentials, is one warning.
 */
export function waitingCommenter(
  config: TheLoopConfig,
  github: () => GitHubClient | undefined,
  warn: (line: string) => void,
): ((workItem: string, kind: PaneWaitReason, message: string) => void) | undefined {
  const kinds = new Set<string>(config.github.announceWaits);
  if (config.routing.waitingComment) kinds.add('permission');
  const paneKinds: PaneWaitReason[] = ['question', 'permission', 'stuck'];
  if (!paneKinds.some((kind) => kinds.has(kind))) return undefined;
  return (workItem, kind, message) => {
    if (!kinds.has(kind)) return;
    const ref = parseWorkItemRef(workItem);
    const client = github();
    if (!client) {
      warn(`${workItem}: no waiting comment: no GitHub client is configured (no token)`);
      return;
    }
    const repo = { host: ref.host, owner: ref.owner, repo: ref.repo };
    client
      .postComment(repo, ref.number, waitingCommentBody(workItem, kind, message))
      .catch((error: unknown) => warn(`${workItem}: could not comment on the wait: ${errorLine(error)}`));
  };
}
