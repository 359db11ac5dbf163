import { withMarker } from '../bridge/marker';
import type { TheLoopConfig } from '../config/schema';
import { errorLine } from '../errors';
import type { GitHubClient } from '../github/api';
import { parseWorkItemRef } from '../work-item/ref';

/** The comment that says what a session waits for, and where to answer it. */
export function waitingCommentBody(workItem: string, message: string): string {
  return withMarker(
    `the-loop: the session of ${workItem} is waiting for a human — ${message}\n\n` +
      `Answer it in the session: \`the-loop sessions attach --work-item ${workItem}\`.`,
  );
}

/**
 * `routing.waitingComment`: one comment on a GitHub work item when its session starts waiting for a human (a
 * permission prompt). Best effort: a failure, or a worker without GitHub credentials, is one warning.
 */
export function waitingCommenter(
  config: TheLoopConfig,
  github: () => GitHubClient | undefined,
  warn: (line: string) => void,
): ((workItem: string, message: string) => void) | undefined {
  if (!config.routing.waitingComment) return undefined;
  return (workItem, message) => {
    const ref = parseWorkItemRef(workItem);
    const client = github();
    if (!client) {
      warn(`${workItem}: no waiting comment: no GitHub client is configured (no token)`);
      return;
    }
    const repo = { host: ref.host, owner: ref.owner, repo: ref.repo };
    client
      .postComment(repo, ref.number, waitingCommentBody(workItem, message))
      .catch((error: unknown) => warn(`${workItem}: could not comment on the wait: ${errorLine(error)}`));
  };
}
