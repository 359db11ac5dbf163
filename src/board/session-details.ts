import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveProcessGraph } from '../config/process-graph-file';
import { readJsonIfExists } from '../session/json-file';
import { readJsonl } from '../session/jsonl';
import { sessionPaths } from '../session/paths';
import { childrenFileSchema, resultFileSchema, sessionEventSchema } from '../session/schemas';
import type { SessionsContext } from '../use-cases/context';
import { showSession } from '../use-cases/show';
import { declaredEnvironment, environmentWithout } from '../work-item/env';
import { readWorkItemEvents } from '../work-item/event-log';
import { workItemDirs } from '../work-item/paths';
import { Tmux } from '../work-item/tmux';
import type { BoardRow } from './rows';
import type { ChildNode, SessionDetails, TimelineEntry, TurnReply } from './session-page';

/** How much of a session's history its page shows. */
const TIMELINE_ENTRIES = 200;
const REPLIES = 3;
const CHILD_DEPTH = 4;

function detailOf(data: Record<string, unknown> | undefined): string {
  if (!data) return '';
  const text = Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v as string | number | boolean)}`)
    .join(' ');
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** The newest turns' replies (iterations/NNNN_*\/result.json), newest first. */
export function lastReplies(sessionDir: string, count = REPLIES): TurnReply[] {
  let names: string[];
  try {
    names = readdirSync(join(sessionDir, 'iterations')).sort().reverse();
  } catch {
    return [];
  }
  const replies: TurnReply[] = [];
  for (const name of names) {
    if (replies.length >= count) break;
    const iteration = Number.parseInt(name, 10);
    if (!Number.isInteger(iteration)) continue;
    try {
      const result = readJsonIfExists(join(sessionDir, 'iterations', name, 'result.json'), resultFileSchema);
      if (result)
        replies.push({ iteration, success: result.success, reply: result.text, error: result.error });
    } catch {
      // a torn result: the older ones still show
    }
  }
  return replies;
}

function childTree(sessionDir: string, depth: number): ChildNode[] {
  if (depth <= 0) return [];
  let file;
  try {
    file = readJsonIfExists(sessionPaths(sessionDir).children, childrenFileSchema);
  } catch {
    return [];
  }
  return (file?.children ?? []).map((child) => ({
    id: child.session_id ?? child.request_file,
    status: child.status,
    outcome: child.outcome,
    children: child.session_id
      ? childTree(join(sessionPaths(sessionDir).childrenDir, child.session_id), depth - 1)
      : [],
  }));
}

/** The visible screen of a pane (not its history), read through the project's tmux wrapper. */
export async function paneScreen(
  ctx: SessionsContext,
  socket: string,
  session: string,
): Promise<string | null> {
  const env = environmentWithout(declaredEnvironment(ctx.config).keptOut);
  delete env.TMUX;
  try {
    return await new Tmux(socket, env).screen(session);
  } catch {
    return null;
  }
}

/** What a session's page shows: a work item through `sessions show`'s use case, a goal session from its files. */
export async function sessionDetails(ctx: SessionsContext, row: BoardRow): Promise<SessionDetails> {
  if (row.kind === 'goal') {
    const paths = sessionPaths(row.sessionDir);
    const timeline: TimelineEntry[] = readJsonl(paths.events, sessionEventSchema)
      .slice(-TIMELINE_ENTRIES)
      .reverse()
      .map((e) => ({
        ts: e.ts,
        type: e.type,
        detail: `${e.iteration ? `iteration ${e.iteration} ` : ''}${detailOf(e.data)}`,
      }));
    return {
      row,
      timeline,
      replies: lastReplies(row.sessionDir),
      children: childTree(row.sessionDir, CHILD_DEPTH),
      graph: null,
      screen: null,
    };
  }
  const view = await showSession(ctx, row.session);
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const timeline = readWorkItemEvents(dirs, view.record.slug)
    .slice(-TIMELINE_ENTRIES)
    .reverse()
    .map((e) => ({ ts: e.ts, type: e.type, detail: detailOf(e.data) }));
  const tmux = view.attach ? view.record.tmux : null;
  return {
    row,
    timeline,
    replies: lastReplies(view.session_dir),
    children: childTree(view.session_dir, CHILD_DEPTH),
    graph: resolveProcessGraph(ctx.config.process, null),
    screen: tmux ? await paneScreen(ctx, tmux.socket, tmux.session) : null,
  };
}
