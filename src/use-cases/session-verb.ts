import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { runHostVerb } from '../work-item/host';
import { runningWorkItem, updateFailureMessage } from '../temporal/work-items';
import { updateToEnd } from '../temporal/update-to-end';
import { CliError } from '../errors';
import { canonicalWorkItem, hostContext, withTemporal, type SessionsContext } from './context';

/** A verb that is one host operation: its update (work-item/messages.ts), and what a failure calls it. */
export interface SessionVerb<Req, Res> {
  update: UpdateDefinition<Res, [Req]>;
  what: string;
}

/**
 * The one "live workflow or local fallback" decision for a verb that is one host operation (its host side in
 * src/work-item/host/<verb>.ts): when the work item's workflow runs, the update goes to it, and it runs the verb
 * on the machine that holds the session, in line with the session's other host operations; when none runs, the
 * verb runs here, on this machine's records. A failure either way is one line: `<work item>: <what> failed: …`.
 */
async function onSession<Req, Res>(
  ctx: SessionsContext,
  client: Client,
  workItem: string,
  verb: SessionVerb<Req, Res>,
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

/**
 * A verb that is one host operation, on each work item named, in order (the use case such a verb needs no file
 * for): `onReport` hears each as it is done; the first failure ends the run.
 */
export async function sessionVerb<Req, Res>(
  ctx: SessionsContext,
  workItemTexts: string[],
  verb: SessionVerb<Req, Res>,
  request: Req,
  onReport: (report: Res) => void = () => undefined,
): Promise<Res[]> {
  const workItems = workItemTexts.map(canonicalWorkItem);
  return withTemporal(ctx, async (client) => {
    const reports: Res[] = [];
    for (const workItem of workItems) {
      const report = await onSession(ctx, client, workItem, verb, request);
      reports.push(report);
      onReport(report);
    }
    return reports;
  });
}
