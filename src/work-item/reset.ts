import { existsSync, readdirSync } from 'node:fs';
import { appendWorkItemEvent } from './event-log';
import { hostDirs, locate, type HostContext } from './host/index';
import { readPortable, updatePortable } from './portable';
import { formatRef, parseWorkItemRef, type WorkItemRef } from './ref';
import { deleteRecord, listRecords, readRecord } from './registry';
import { workspaceLayout, removeCheckout } from './workspace';

/** Every work item this machine holds state for: a registry record or a portable record. */
export function heldWorkItems(ctx: HostContext): string[] {
  const dirs = hostDirs(ctx);
  const refs = new Set<string>();
  for (const record of listRecords(dirs.registryDir).records) refs.add(record.work_item);
  if (existsSync(dirs.portableDir)) {
    for (const name of readdirSync(dirs.portableDir)) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      try {
        const portable = readPortable(dirs, name.slice(0, -'.json'.length));
        if (portable) refs.add(portable.work_item);
      } catch {
        // not ours to judge here; list reports invalid files
      }
    }
  }
  return [...refs].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

export interface ResetPlan {
  workItem: string;
  ref: WorkItemRef;
  hasRecord: boolean;
  hasControl: boolean;
  hasPoll: boolean;
  checkout: string | null;
}

export function planReset(ctx: HostContext, workItem: string): ResetPlan {
  const at = locate(ctx, workItem);
  const record = readRecord(at.dirs, at.slug);
  const portable = readPortable(at.dirs, at.slug);
  const checkoutPath = record?.checkout?.path ?? workspaceLayout(at.dirs.workspaceRoot, at.ref).checkout;
  return {
    workItem: at.workItem,
    ref: at.ref,
    hasRecord: record !== null,
    hasControl: portable?.control != null,
    hasPoll: portable?.poll != null,
    checkout: existsSync(checkoutPath) ? checkoutPath : null,
  };
}

/** What goes after the live session is closed: the record (deleted), control and poll (cleared), the log line. */
export async function applyReset(
  ctx: HostContext,
  plan: ResetPlan,
): Promise<{ removed: string[]; removedCheckout: string | null }> {
  const at = locate(ctx, plan.workItem);
  const removed: string[] = [];
  let removedCheckout: string | null = null;
  if (!ctx.config.workspace.keepCheckoutOnClose) {
    removedCheckout = await removeCheckout(
      at.dirs.workspaceRoot,
      at.ref,
      readRecord(at.dirs, at.slug)?.checkout ?? null,
    );
  }
  if (await deleteRecord(at.dirs, at.slug)) removed.push('session');
  const portable = readPortable(at.dirs, at.slug);
  if (portable && (portable.control !== null || portable.poll !== null)) {
    if (portable.control !== null) removed.push('control');
    if (portable.poll !== null) removed.push('poll');
    await updatePortable(at.dirs, at.slug, at.workItem, (p) => ({ ...p, control: null, poll: null }));
  }
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.reset', {
    removed,
    removed_checkout: removedCheckout,
  });
  return { removed, removedCheckout };
}

/** Parses every ref first: one bad ref in a list resets none of them (throws naming it). */
export function parseRefList(refs: readonly string[]): string[] {
  return refs.map((r) => formatRef(parseWorkItemRef(r)));
}
