import { cleanupLocal, postKeywordComment, recordControl, type CommentResult } from '../work-item/host';
import { controlWorkItem, updateFailureMessage } from '../temporal/work-items';
import type { ControlReport, WorkItemControlCommand } from '../workflows/work-item/messages';
import { CliError, EXIT } from '../errors';
import {
  canonicalWorkItem,
  githubClient,
  hostContext,
  localUser,
  withTemporal,
  workItemQueues,
  type SessionsContext,
} from './context';

export interface ControlResult {
  workItem: string;
  command: WorkItemControlCommand;
  /** The workflow's report when a session runs (always, for start); null when this machine acted alone. */
  report: ControlReport | null;
  /** What this machine did when no session runs (cleanup, stop). */
  lines: string[];
  /** The keyword comment, when one was asked for. */
  comment: CommentResult | null;
}

/**
 * A control verb on a work item's session. The one "live workflow or local fallback" decision for control:
 * the workflow acts when a session runs (start opens one); otherwise cleanup and stop act on this machine
 * through the host layer, and pause and resume have nothing to act on. Then, when asked, the keyword comment
 * goes to the work item through the host's poster, so the other machines watching it hear the same command.
 */
export async function controlSession(
  ctx: SessionsContext,
  workItemText: string,
  command: WorkItemControlCommand,
  options: { comment: boolean; asker?: { by: string; via: 'cli' | 'board' } },
): Promise<ControlResult> {
  const workItem = canonicalWorkItem(workItemText);
  const github = options.comment ? await githubClient(ctx) : null;
  const host = hostContext(ctx, github);
  const { by, via } = options.asker ?? { by: localUser(), via: 'cli' as const };
  const report = await withTemporal(ctx, async (client) => {
    try {
      return await controlWorkItem(
        client,
        workItemQueues(ctx),
        workItem,
        // The comment is posted below, once, whichever side acted.
        { command, by, via, comment: false },
        ctx.config.harness.default,
      );
    } catch (error) {
      throw new CliError(`${command} ${workItem} failed: ${updateFailureMessage(error)}`, EXIT.failure);
    }
  });
  let lines: string[] = [];
  if (report === null) {
    if (command === 'cleanup') {
      lines = (await cleanupLocal(host, workItem)).lines;
    } else if (command === 'stop') {
      await recordControl(host, { workItem, command, by, via });
      lines = [
        `${workItem} has no running session; recorded stop — it stays disarmed until an explicit start`,
      ];
    } else {
      throw new CliError(
        `${workItem}: no running session — \`the-loop sessions start\` starts one`,
        EXIT.failure,
      );
    }
  }
  const comment = options.comment ? await postKeywordComment(host, workItem, command) : null;
  return { workItem, command, report, lines, comment };
}
