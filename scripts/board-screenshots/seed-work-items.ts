// Writes the scene's work items as the host would have left them: a registry record, a portable record with the
// graph's node, a session directory with the newest turns' replies, and an event log. Through the project's own
// writers and schemas, so a record the board would refuse fails here instead of showing as a missing row.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { appendLine } from '../../src/session/atomic';
import { createSessionDirectory } from '../../src/session/session-dir';
import { goalHash, newSessionId } from '../../src/session/session-id';
import { eventLogFile, type WorkItemDirs } from '../../src/work-item/paths';
import { updatePortable } from '../../src/work-item/portable';
import { parseWorkItemRef, refSlug, tmuxSessionName } from '../../src/work-item/ref';
import { writeRecord } from '../../src/work-item/registry';
import {
  workItemEventSchema,
  type RegistryRecord,
  type WorkItemEventType,
} from '../../src/work-item/schemas';
import { finishDeliveryIteration, startDeliveryIteration } from '../../src/work-item/session-dir';
import {
  ago,
  FEATURED,
  GATE_DETAIL,
  HOST_QUEUE,
  TASK_QUEUE,
  TMUX_SOCKET,
  usageFor,
  type WorkItemScene,
} from './scene';

/** Hex characters that are the same on every run (a session id's random part, a run id, a conversation id). */
function stableHex(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

function sessionDirectory(dirs: WorkItemDirs, item: WorkItemScene): string {
  const goal = `Work item ${item.ref}: act on the events the-loop delivers to this session.\n`;
  const id = newSessionId(goal, new Date(ago(item.registeredAgo)), stableHex(item.ref));
  const paths = createSessionDirectory({
    sessionDir: join(dirs.sessionsDir, id),
    goal,
    session: {
      session_id: id,
      goal_hash: goalHash(goal),
      created_at: ago(item.registeredAgo),
      cwd: item.cwd,
      workflow_id: `work-item/${item.ref}`,
      task_queue: TASK_QUEUE,
      host_queue: HOST_QUEUE,
      harness: 'claude',
      parent_session_id: null,
      routines_file: null,
    },
    createdBy: 'host',
  });
  // the newest turns, numbered so that the last is the record's last counted turn
  item.replies.forEach((reply, index) => {
    const n = item.turns - item.replies.length + 1 + index;
    startDeliveryIteration(paths.dir, n, `(event of turn ${n})`);
    finishDeliveryIteration(paths.dir, n, {
      success: true,
      text: reply,
      error: null,
      harnessSessionId: stableHex(`${item.ref} conversation`, 32),
      usage: { usage: usageFor(item.costUsd / item.turns, 1), unpriced: [], complete: true },
    });
  });
  return paths.dir;
}

function record(item: WorkItemScene, sessionDir: string): RegistryRecord {
  const ref = parseWorkItemRef(item.ref);
  return {
    schema_version: 1,
    work_item: item.ref,
    slug: refSlug(ref),
    status: item.closed ? 'closed' : 'active',
    harness: 'claude',
    harness_session_id: item.spawned ? stableHex(`${item.ref} conversation`, 32) : null,
    cwd: item.cwd,
    registered_at: ago(item.registeredAgo),
    updated_at: ago(item.updatedAgo),
    workflow_id: `work-item/${item.ref}`,
    run_id: stableHex(`${item.ref} run`, 32),
    host_queue: HOST_QUEUE,
    session_dir: sessionDir,
    tmux:
      item.spawned && !item.closed
        ? {
            socket: TMUX_SOCKET,
            session: tmuxSessionName(ref),
            created_at: ago(item.registeredAgo - 1),
            command: ['claude', '--resume', stableHex(`${item.ref} conversation`, 32)],
          }
        : null,
    checkout: null,
    pull_requests: item.pullRequests,
    last_control: { command: 'start', at: ago(item.registeredAgo) },
    closed_at: item.closed ? ago(item.closed.ago) : null,
    closed_reason: item.closed?.reason ?? null,
    waiting: item.waiting
      ? { reason: item.waiting.reason, detail: item.waiting.detail, since: ago(item.waiting.sinceAgo) }
      : null,
    ...(item.turns > 0
      ? {
          spent: {
            usage: usageFor(item.costUsd, item.turns),
            unpriced_models: [],
            last_counted: { session_dir: sessionDir, iteration: item.turns },
          },
        }
      : {}),
  };
}

type Entry = [minutesAgo: number, type: WorkItemEventType, data: Record<string, unknown>];

/** The featured session's history, as its page's timeline shows it (newest first there). */
function featuredTimeline(item: WorkItemScene, sessionDir: string): Entry[] {
  const slug = refSlug(parseWorkItemRef(item.ref));
  const turn = (n: number, event: string, from: number, to: number): Entry[] => [
    [from, 'event.delivered', { event_id: event, iteration: n, submitted: true }],
    [to, 'turn.spent', { session_dir: sessionDir, iteration: n }],
  ];
  return [
    [140, 'session.opened', { workflow_id: `work-item/${item.ref}`, harness: 'claude', cwd: item.cwd }],
    [140, 'graph.entered', { node: 'spec', previous: null }],
    [139, 'session.spawned', { tmux: `loop-${slug}`, socket: TMUX_SOCKET, cwd: item.cwd, resumed: false }],
    ...turn(1, `graph:spec:${stableHex('spec')}`, 139, 121),
    [121, 'graph.entered', { node: 'spec-approval', previous: 'spec' }],
    [121, 'wait.began', { reason: 'gate', detail: GATE_DETAIL, since: ago(121) }],
    [78, 'wait.ended', { reason: 'gate', detail: GATE_DETAIL, since: ago(121) }],
    [78, 'graph.entered', { node: 'implement', previous: 'spec-approval' }],
    ...turn(2, `graph:implement:${stableHex('implement')}`, 78, 52),
    ...turn(3, 'comment:2211437890', 50, 31),
    ...turn(4, 'check:38112907454:failure', 29, 12),
    [11, 'event.delivered', { event_id: 'comment:2211502316', iteration: 5, submitted: true }],
    [6, 'wait.began', { reason: 'permission', detail: item.waiting?.detail, since: ago(6) }],
  ];
}

/** What every other session's log begins and ends with (nobody sees it; it keeps the files consistent). */
function briefTimeline(item: WorkItemScene): Entry[] {
  const entries: Entry[] = [
    [item.registeredAgo, 'session.opened', { workflow_id: `work-item/${item.ref}`, harness: 'claude' }],
  ];
  if (item.spawned) entries.push([item.registeredAgo - 1, 'session.spawned', { socket: TMUX_SOCKET }]);
  for (const pr of item.pullRequests) entries.push([item.updatedAgo + 1, 'pr.linked', { pull_request: pr }]);
  if (item.closed) entries.push([item.closed.ago, 'session.closed', { reason: item.closed.reason }]);
  return entries;
}

/** The event log, each line at its own time (appendWorkItemEvent stamps lines with now). */
function writeTimeline(dirs: WorkItemDirs, item: WorkItemScene, entries: Entry[]): void {
  const file = eventLogFile(dirs, refSlug(parseWorkItemRef(item.ref)));
  for (const [minutes, type, data] of entries) {
    const event = workItemEventSchema.parse({ v: 1, ts: ago(minutes), work_item: item.ref, type, data });
    appendLine(file, JSON.stringify(event));
  }
}

export async function seedWorkItems(dirs: WorkItemDirs, items: readonly WorkItemScene[]): Promise<void> {
  for (const item of items) {
    const sessionDir = sessionDirectory(dirs, item);
    const written = writeRecord(dirs, record(item, sessionDir));
    const node = item.node;
    if (node !== null) {
      await updatePortable(dirs, written.slug, item.ref, (p) => ({
        ...p,
        graph: { node, at: ago(item.updatedAgo) },
      }));
    }
    writeTimeline(
      dirs,
      item,
      item.ref === FEATURED ? featuredTimeline(item, sessionDir) : briefTimeline(item),
    );
  }
}
