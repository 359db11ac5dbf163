import type { UpdateDefinition } from '@temporalio/common';
import type { HostContext } from './context';

/**
 * A `sessions` verb's host side: what runs on the machine that holds the work item's session when its update
 * comes. The update's definition (work-item/messages.ts) types both ends: the request the CLI and the workflow
 * send is the one `run` takes, and what `run` returns is what the update answers.
 */
export interface HostVerb<Req, Res, Name extends string = string> {
  readonly update: UpdateDefinition<Res, [Req], Name>;
  // A method, not a function-typed property: every HostVerb is then a HostVerb<unknown, unknown>, which is what the
  // table of verbs by name (verbs.ts) holds; there the update's name is what picks the request's type.
  run(ctx: HostContext, workItem: string, request: Req): Promise<Res>;
}

/** Declares the host side of `update`: export it from `host/<verb>.ts` and add it to the list in `host/verbs.ts`. */
export function hostVerb<Req, Res, Name extends string>(
  update: UpdateDefinition<Res, [Req], Name>,
  run: (ctx: HostContext, workItem: string, request: Req) => Promise<Res>,
): HostVerb<Req, Res, Name> {
  return { update, run };
}
