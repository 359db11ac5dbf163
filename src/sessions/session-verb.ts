import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { runHostVerb } from '../work-item/host';
import { runningWorkItem, updateFailureMessage } from '../temporal/work-items';
import { updateToEnd } from '../temporal/update-to-end';
import { CliError } from '../errors';
import { canonicalWorkItem, hostContext, withTemporal, type SessionsContext } from './context';

/**
 * The one "live workflow or local fallback" decision for a verb that is one host operation (its host side in
 * src/work-item/host/<verb>.ts): when the work item's workflow runs, the update goes to it, and it runs the verb
 * on the machine that holds the session, in line with the session's other host operations; when none runs, the
 * verb runs here, on this machine's records. A failure either way is one line: `<work item>: <what> failed: …`.
 */
export async function hostVerbOnSession<Req, Res>(
  ctx: SessionsContext,
  client: Client,
  workItem: string,
  verb: { update: UpdateDefinition<Res, [Req]>; what: string },
  request: Req,
): Promise<Res> {
  const live = await runningWorkItem(client, workItem);
  try {
    if (live) return await updateToEnd(live, verb.update, [request]);
    return await runHostVerb(hostContext(ctx), verb.update, workItem, request);
  } catch (error) {
    throw new CliError(`${workItem}: ${verb.what} failed: ${updateFailureMessage(error)}`);
  }
}

/** A command's host verb on the work item it names: the use case a new `sessions` verb needs no file for. */
export async function sessionVerb<Req, Res>(
  ctx: SessionsContext,
  workItemText: string,
  verb: { update: UpdateDefinition<Res, [Req]>; what: string },
  request: Req,
): Promise<{ workItem: string; report: Res }> {
  const workItem = canonicalWorkItem(workItemText);
  const report = await withTemporal(ctx, (client) => hostVerbOnSession(ctx, client, workItem, verb, request));
  return { workItem, report };
}
