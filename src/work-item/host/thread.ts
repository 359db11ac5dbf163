import { readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ChannelThread } from '../../channel/channel';
import type { ProcessGraph } from '../../config/process-graph';
import type { ThreadMirror } from '../../channel/mirror';
import { appendWorkItemEvent } from '../event-log';
import type { WorkItemDirs } from '../paths';
import { readPortable, updatePortable } from '../portable';
import type { PortableRecord } from '../schemas';
import { parseWorkItemRef, refSlug } from '../ref';
import { locate, type HostContext, type Located } from './context';

/** The thread the portable record names, or null (none opened yet, or an unreadable record). */
export function recordedThread(dirs: WorkItemDirs, slug: string): ChannelThread | null {
  try {
    const thread = readPortable(dirs, slug)?.channel_thread;
    return thread ? { threadId: thread.thread_id, permalink: thread.permalink } : null;
  } catch {
    return null;
  }
}

/**
 * Before a spawn: the work item's thread, found again from the portable record's link or opened, and its link
 * recorded there so that any machine (or a fresh state directory) posts into the same thread. Null when no channel
 * is configured or it could not be reached (the channel warned); the spawn goes on either way.
 */
export async function openWorkItemThread(ctx: HostContext, at: Located): Promise<ChannelThread | null> {
  const mirror = ctx.mirror;
  if (!mirror) return null;
  const recorded = recordedThread(at.dirs, at.slug);
  const { host, owner, repo, number } = at.ref;
  const thread = await mirror.openOrFindThread(
    { ref: at.workItem, url: `https://${host}/${owner}/${repo}/issues/${number}` },
    recorded?.permalink ?? null,
  );
  if (!thread || thread.permalink === recorded?.permalink) return thread;
  const now = new Date().toISOString();
  await updatePortable(at.dirs, at.slug, at.workItem, (p) => ({
    ...p,
    channel_thread: { kind: 'slack', thread_id: thread.threadId, permalink: thread.permalink, at: now },
  }));
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'thread.opened', { permalink: thread.permalink });
  return thread;
}

/** One line into the work item's thread, best effort and not awaited; nothing when it has none. */
export function mirrorToThread(
  mirror: ThreadMirror | null | undefined,
  dirs: WorkItemDirs,
  workItem: string,
  text: string,
): void {
  if (!mirror) return;
  let slug: string;
  try {
    slug = refSlug(parseWorkItemRef(workItem));
  } catch {
    return;
  }
  const thread = recordedThread(dirs, slug);
  if (thread) mirror.post(thread, text);
}

/** mirrorToThread for a host operation. */
export function mirrorLine(ctx: HostContext, workItem: string, text: string): void {
  if (ctx.mirror) mirrorToThread(ctx.mirror, locate(ctx, workItem).dirs, workItem, text);
}

/** What a spawn says in the thread: where the session runs, and how a person joins it. */
export function announcement(socket: string, target: string, resumed: boolean): string {
  const how = resumed ? 'resumed its conversation' : 'started';
  return `the-loop ${how} on ${hostname()} — attach with: tmux -L ${socket} attach -t '=${target}'`;
}

/** The work item whose portable record names this thread (a reply's routing key), or null when none here does. */
export function workItemOfThread(
  dirs: WorkItemDirs,
  threadId: string,
): (ChannelThread & { workItem: string }) | null {
  let names: string[];
  try {
    names = readdirSync(dirs.portableDir).filter((n) => n.endsWith('.json'));
  } catch {
    return null;
  }
  for (const name of names) {
    let record: PortableRecord | null;
    try {
      record = readPortable(dirs, name.slice(0, -'.json'.length));
    } catch {
      continue; // one unreadable record hides no other
    }
    const thread = record?.channel_thread;
    if (record && thread?.thread_id === threadId)
      return { workItem: record.work_item, threadId, permalink: thread.permalink };
  }
  return null;
}

/** What a gate says in the thread: what it waits for, and the replies that answer it there. */
export function gateLine(graph: ProcessGraph, node: string): string {
  const current = graph.nodes[node];
  const question = current?.kind === 'gate' ? current.question : 'answer the gate';
  return `waiting for a human at ${node}: ${question} — reply \`the-loop approve\` or \`the-loop reject <reason>\``;
}

/** The thread's line when a budget holds the session's next turn. */
export function budgetLine(detail: string): string {
  return `waiting: budget — ${detail}`;
}
