import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { runHostVerb } from '../work-item/host';
import { updateFailureMessage } from '../temporal/work-items';
import { liveOrHere } from '../temporal/live-or-here';
import { updateToEnd } from '../temporal/update-to-end';
import { CliError } from '../errors';
import { canonicalWorkItem, hostContext, withTemporal, type SessionsContext } from './context';

/** A verb that is one host operation: its update (work-item/messages.ts), and what a failure calls it. */
export interface SessionVerb<Req, Res> {
  update: UpdateDefinition<Res, [Req]>;
  what: string;
}

/**
 * A verb that is one host operation (its host side in src/work-item/host/<verb>.ts), by the "live workflow, else
 * this machine" rule (liveOrHere): the update goes to the running workflow, which runs the verb where the session
 * is; with none running, the verb runs here. A failure either way is one line: `<work item>: <what> failed: …`.
 */
async function onSession<Req, Res>(
  ctx: SessionsContext,
  client: Client,
  workItem: string,
  verb: SessionVerb<Req, Res>,
  request: Req,
): Promise<Res> {
  // only the verb's own failure is one line: one in finding the workflow is the connection's, and says so itself
  const failing = async (act: () => Promise<Res>): Promise<Res> => {
    try {
      return await act();
    } catch (error) {
      throw new CliError(`${workItem}: ${verb.what} failed: ${updateFailureMessage(error)}`);
    }
  };
  return liveOrHere(
    client,
    workItem,
    (live) => failing(() => updateToEnd(live, verb.update, [request])),
    () => failing(() => runHostVerb(hostContext(ctx), verb.update, workItem, request)),
  );
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
