import type { Client } from '@temporalio/client';
import { closeSession, hostDirs, locate } from '../work-item/host';
import { readRecord } from '../work-item/registry';
import { closeWorkItem, runningWorkItem, updateFailureMessage } from '../temporal/work-items';
import type { CloseRequest } from '../workflows/work-item/messages';
import { CliError, EXIT } from '../errors';
import { canonicalWorkItem, hostContext, withTemporal, type SessionsContext } from './context';

/** How a session ended (or would end, on a dry run): by its workflow, on this machine, or not at all. */
export type SessionEnd =
  | { by: 'workflow' | 'host'; lines: string[]; endedLiveSession: boolean; removedCheckout: string | null }
  | { by: 'nothing'; why: 'no-record' | 'already-closed' };

/** The workflow update failed; `message` is its cause, for the caller's one line. */
export class SessionEndFailed extends Error {}

/**
 * The one "live workflow or local fallback" decision for ending a session: the workflow closes it when one
 * runs; otherwise the host layer closes what this machine's registry still holds open.
 */
export async function endSession(
  ctx: SessionsContext,
  client: Client,
  workItem: string,
  request: CloseRequest,
  dryRun = false,
): Promise<SessionEnd> {
  const live = await runningWorkItem(client, workItem);
  if (live) {
    if (dryRun) return { by: 'workflow', lines: [], endedLiveSession: true, removedCheckout: null };
    let report;
    try {
      report = await closeWorkItem(client, workItem, request);
    } catch (error) {
      throw new SessionEndFailed(updateFailureMessage(error));
    }
    if (report) {
      return {
        by: 'workflow',
        lines: report.lines,
        endedLiveSession: true,
        removedCheckout: report.removedCheckout,
      };
    }
  }
  const host = hostContext(ctx);
  const at = await locate(host, workItem);
  const record = await readRecord(await hostDirs(host), at.slug);
  if (!record) return { by: 'nothing', why: 'no-record' };
  if (record.status === 'closed') return { by: 'nothing', why: 'already-closed' };
  if (dryRun) return { by: 'host', lines: [], endedLiveSession: true, removedCheckout: null };
  const local = await closeSession(host, { workItem, ...request });
  return {
    by: 'host',
    lines: local.lines,
    endedLiveSession: local.endedLiveSession,
    removedCheckout: local.removedCheckout,
  };
}

/** `sessions close`: ends the session, keeping or killing its tmux session. */
export async function closeWorkItemSession(
  ctx: SessionsContext,
  workItemText: string,
  keepTmux: boolean | null,
): Promise<{ workItem: string; end: SessionEnd }> {
  const workItem = canonicalWorkItem(workItemText);
  return withTemporal(ctx, async (client) => {
    try {
      const end = await endSession(ctx, client, workItem, { keepTmux, reason: 'closed by hand' });
      return { workItem, end };
    } catch (error) {
      if (error instanceof SessionEndFailed) {
        throw new CliError(`could not close ${workItem}: ${error.message}`, EXIT.failure);
      }
      throw error;
    }
  });
}
