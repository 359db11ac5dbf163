import type { UpdateDefinition } from '@temporalio/common';
import type { HostContext } from './context';
import { HostError } from './host-error';
import type { HostVerb } from './host-verb';
import { linkPullRequestVerb } from './link';
import { restart } from './restart';

/**
 * Every `sessions` verb whose update runs on the host (one file each under this folder): a new one is its file and
 * a line here. The `workItemHostVerb` activity finds a verb by its update's name, and takes the request its update
 * types (HostVerbCall).
 */
export const hostVerbs = [restart, linkPullRequestVerb] as const;

type Listed = (typeof hostVerbs)[number];

/** The update names the host verbs answer: `workItem.restart`, … */
export type HostVerbName = Listed['update']['name'];

/** Each listed verb's request, by its update's name. */
type HostVerbRequests = {
  [V in Listed as V['update']['name']]: V extends HostVerb<infer Req, unknown, string> ? Req : never;
};

/**
 * What the `workItemHostVerb` activity takes besides the work item: a verb's update name and the request that
 * update types, one case per listed verb.
 */
export type HostVerbCall<N extends HostVerbName = HostVerbName> = {
  [K in N]: { verb: K; request: HostVerbRequests[K] };
}[N];

const byName = new Map<string, HostVerb<unknown, unknown>>(hostVerbs.map((verb) => [verb.update.name, verb]));

/** The host verb answering the update named `name`; bad input when the list has none. */
export function hostVerbNamed(name: string): HostVerb<unknown, unknown> {
  const verb = byName.get(name);
  if (!verb) throw new HostError(`no host verb answers the update ${name}`, 'bad-input');
  return verb;
}

/** Runs the host side of `update` here, typed by its definition. */
export async function runHostVerb<Req, Res>(
  ctx: HostContext,
  update: UpdateDefinition<Res, [Req]>,
  workItem: string,
  request: Req,
): Promise<Res> {
  const verb = hostVerbNamed(update.name) as HostVerb<Req, Res>;
  return verb.run(ctx, workItem, request);
}
