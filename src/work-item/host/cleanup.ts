import { appendWorkItemEvent } from '../event-log';
import { processGraphSchema } from '../../config/process-graph-file';
import { cleanupNode } from '../../config/process-graph';
import { readPortable, updatePortable } from '../portable';
import { parseWorkItemRef, tmuxSessionName } from '../ref';
import { deleteRecord, readRecord } from '../registry';
import type { ControlCommand } from '../schemas';
import { removeCheckout } from '../workspace';
import { endPaneProcess } from './close';
import { enterNode } from './enter-node';
import { hostDirs, hostTmux, locate, type HostContext, type Located } from './context';

export interface CleanupResult {
  workItem: string;
  lines: string[];
  nothingToDo: boolean;
}

/** Releases every local resource, ignoring the retention settings; keeps the portable record. */
export async function cleanupLocal(
  ctx: HostContext,
  workItem: string,
  /** Who asked, when no control record says so (a keyword acted on with no session running). */
  asker?: { by: string; via: 'cli' | 'comment' },
): Promise<CleanupResult> {
  const at = locate(ctx, workItem);
  await enterCleanupNode(ctx, at);
  const record = readRecord(at.dirs, at.slug);
  const tmux = hostTmux(ctx);
  const endpoints = [at.workItem, ...(record?.pull_requests ?? [])];
  const ended: string[] = [];
  for (const endpoint of endpoints) {
    const name = tmuxSessionName(parseWorkItemRef(endpoint));
    if (!(await tmux.hasSession(name))) continue;
    await endPaneProcess(tmux, name);
    await tmux.killSession(name);
    ended.push(endpoint);
  }
  const lines: string[] = [];
  if (ended.length > 0) {
    const list = [...ended].reverse().join(', ');
    lines.push(
      ended.length === 1
        ? `ended ${list} — its tmux session and transcript are gone`
        : `ended ${list} — their tmux sessions and transcripts are gone`,
    );
  }
  const root = hostDirs(ctx).workspaceRoot;
  const removed = await removeCheckout(root, at.ref, record?.checkout ?? null);
  if (removed) lines.push(`removed the workspace checkout under ${root} — uncommitted work in it is gone`);
  const deleted = await deleteRecord(at.dirs, at.slug);
  if (deleted) lines.push('removed the machine-local session record');
  await recordControlPortableOnly(at, 'cleanup', asker);
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.cleanup', {
    ended,
    removed_checkout: removed,
    removed_record: deleted,
  });
  const nothingToDo = ended.length === 0 && removed === null && !deleted;
  lines.push(
    nothingToDo
      ? `nothing to clean up for ${at.workItem} — its portable record is kept, and nothing remote was touched`
      : `cleaned up ${at.workItem} — its portable record (control, poll, graph) is kept, and nothing remote was touched`,
  );
  return { workItem: at.workItem, lines, nothingToDo };
}

/**
 * With no session to do it, cleanup takes the graph's transition itself: the pointer moves to the frozen graph's
 * cleanup terminal, checked in on the branch while the checkout is still there, and the ticket gets `loop:cleanup`
 * (best effort: a refusal only warns). A work item that never entered its graph has nothing to move.
 */
async function enterCleanupNode(ctx: HostContext, at: Located): Promise<void> {
  const pointer = readPortable(at.dirs, at.slug)?.graph ?? null;
  const frozen = processGraphSchema.safeParse(pointer?.frozen);
  if (!pointer || !frozen.success) return;
  const target = cleanupNode(frozen.data);
  if (target === null || pointer.node === target) return;
  await enterNode(ctx, {
    workItem: at.workItem,
    node: target,
    previous: pointer.node,
    graph: frozen.data,
    comment: null,
  });
}

/** Cleanup disarms durably and moves the graph to `cleanup`, with or without a registry record. */
async function recordControlPortableOnly(
  at: Located,
  command: ControlCommand,
  asker?: { by: string; via: 'cli' | 'comment' },
): Promise<void> {
  const now = new Date().toISOString();
  await updatePortable(at.dirs, at.slug, at.workItem, (p) => {
    const last = p.control?.last;
    const recordedJustNow = last?.command === command && Date.now() - Date.parse(last.at) < 60_000;
    const entry = { command, at: now, by: asker?.by ?? last?.by ?? 'the-loop', via: asker?.via ?? 'cli' };
    return {
      ...p,
      control: {
        armed: false,
        last: recordedJustNow && last ? last : entry,
        history: recordedJustNow ? (p.control?.history ?? []) : [...(p.control?.history ?? []), entry],
      },
      graph: { ...(p.graph ?? {}), node: 'cleanup', at: now },
    };
  });
}
