import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { REPO_POLLER_WORKFLOW_TYPE } from '../workflows/repo-poller/workflow';
import { applyReset, heldWorkItems, parseRefList, planReset } from '../work-item/reset';
import { RefError } from '../work-item/ref';
import { CliError, errorLine, usageError } from '../errors';
import { endSession, SessionEndFailed } from './close';
import { hostContext, withTemporal, type SessionsContext, type WorkItemSelection } from './context';

export interface ResetRow {
  workItem: string;
  dryRun: boolean;
  /** A live session was (or would be) ended first. */
  endedLiveSession: boolean;
  /** The workspace checkout was (or would be) removed. */
  removedCheckout: boolean;
  /** What was (or would be) removed: session, control, poll. */
  removed: string[];
}

/**
 * The repository pollers Temporal runs now on this configuration's task queue (repoPoller workflows, started by
 * `the-loop webhook`, `the-loop dev` or the service): each holds poll state it may write back.
 */
async function livePollers(client: Client, taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  const query = [
    `WorkflowType = '${REPO_POLLER_WORKFLOW_TYPE}'`,
    `ExecutionStatus = 'Running'`,
    `TaskQueue = '${taskQueue.replaceAll("'", '')}'`,
  ].join(' AND ');
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids.sort();
}

/**
 * Warnings worth reading before a reset: a bridge that may write poll state back — a receiver this state
 * directory's service started, or any poller Temporal runs (`the-loop dev`, a standalone `the-loop webhook`) —
 * and auto-respawn.
 */
async function resetWarnings(ctx: SessionsContext, client: Client): Promise<string[]> {
  const warnings: string[] = [];
  if (ctx.stateDir && existsSync(join(ctx.stateDir, 'webhook.pid'))) {
    warnings.push(
      'gh-webhook appears to be running: it holds poll state in memory and may write it back — stop it first for a clean slate',
    );
  }
  const pollers = await livePollers(client, ctx.config.temporal.taskQueue).catch((error: unknown) => {
    warnings.push(`could not ask Temporal for running pollers: ${errorLine(error)}`);
    return [];
  });
  if (pollers.length > 0) {
    warnings.push(
      `pollers are running (${pollers.join(', ')}): they hold poll state and may write it back — stop the bridge first for a clean slate`,
    );
  }
  if (!ctx.config.routing.requireStartCommand) {
    warnings.push(
      'routing.requireStartCommand is false: with the poll section cleared, the next poll cycle may re-spawn these items rather than wait for a start',
    );
  }
  return warnings;
}

/**
 * Forgets what this machine remembers about each work item: ends a live session first (through its workflow
 * when one runs, else locally), then drops the record, the control and poll sections and the checkout.
 * Every ref is parsed before anything is touched; `listener` hears the warnings, then each item as it is done.
 */
export async function resetSessions(
  ctx: SessionsContext,
  selection: WorkItemSelection,
  dryRun: boolean,
  listener: { warning(text: string): void; row(row: ResetRow): void },
): Promise<number> {
  let refs: string[];
  try {
    refs = selection.all ? [] : await parseRefList(selection.workItems);
  } catch (error) {
    if (error instanceof RefError) throw usageError(`${error.message} — nothing was reset`);
    throw error;
  }
  const host = hostContext(ctx);
  if (selection.all) refs = await heldWorkItems(host);
  await withTemporal(ctx, async (client) => {
    for (const warning of await resetWarnings(ctx, client)) listener.warning(warning);
    for (const workItem of refs) {
      const plan = await planReset(host, workItem);
      let end;
      try {
        end = await endSession(ctx, client, workItem, { keepTmux: null, reason: 'reset' }, dryRun);
      } catch (error) {
        if (error instanceof SessionEndFailed) {
          throw new CliError(`${workItem}: could not end the live session: ${error.message}`);
        }
        throw error;
      }
      const endedLiveSession = end.by !== 'nothing' && end.endedLiveSession;
      if (dryRun) {
        listener.row({
          workItem,
          dryRun,
          endedLiveSession,
          removedCheckout: plan.checkout !== null && !ctx.config.workspace.keepCheckoutOnClose,
          removed: [plan.hasRecord && 'session', plan.hasControl && 'control', plan.hasPoll && 'poll'].filter(
            (x): x is string => typeof x === 'string',
          ),
        });
        continue;
      }
      const applied = await applyReset(host, plan);
      listener.row({
        workItem,
        dryRun,
        endedLiveSession,
        removedCheckout:
          (end.by !== 'nothing' && end.removedCheckout !== null) || applied.removedCheckout !== null,
        removed: applied.removed,
      });
    }
  });
  return refs.length;
}
