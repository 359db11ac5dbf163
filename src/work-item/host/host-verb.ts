import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { UpdateDefinition } from '@temporalio/common';
import type { HostContext } from './context';
import { HostError } from './host-error';

/**
 * A `sessions` verb's host side: what runs on the machine that holds the work item's session when its update
 * comes. The update's definition (work-item/messages.ts) types both ends: the request the CLI and the workflow
 * send is the one `run` takes, and what `run` returns is what the update answers.
 */
export class HostVerb<Req, Res> {
  constructor(
    readonly update: UpdateDefinition<Res, [Req]>,
    readonly run: (ctx: HostContext, workItem: string, request: Req) => Promise<Res>,
  ) {}
}

/** Declares the host side of `update`: export it from `host/<verb>.ts`, and the worker and the CLI find it. */
export function hostVerb<Req, Res>(
  update: UpdateDefinition<Res, [Req]>,
  run: (ctx: HostContext, workItem: string, request: Req) => Promise<Res>,
): HostVerb<Req, Res> {
  return new HostVerb(update, run);
}

let table: Promise<Map<string, HostVerb<unknown, unknown>>> | null = null;

/**
 * Every HostVerb exported by a file of this folder, by its update's name. Read from the folder rather than a list,
 * so that adding a verb is adding its file; loaded once, the first time a verb runs.
 */
function hostVerbs(): Promise<Map<string, HostVerb<unknown, unknown>>> {
  table ??= (async () => {
    const verbs = new Map<string, HostVerb<unknown, unknown>>();
    // .ts under the tests' transform, .js once built
    const modules = (await readdir(__dirname)).filter((f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts'));
    for (const file of modules) {
      const exported = (await import(join(__dirname, file))) as Record<string, unknown>;
      for (const value of Object.values(exported)) {
        if (value instanceof HostVerb) verbs.set(value.update.name, value as HostVerb<unknown, unknown>);
      }
    }
    return verbs;
  })();
  return table;
}

/** The host verb answering the update named `name`; bad input when no file declares one. */
export async function hostVerbNamed(name: string): Promise<HostVerb<unknown, unknown>> {
  const verb = (await hostVerbs()).get(name);
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
  const verb = (await hostVerbNamed(update.name)) as HostVerb<Req, Res>;
  return verb.run(ctx, workItem, request);
}
