import { goalWaiting } from '../session/goal-waiting';
import { readGoalSessionSummaries } from '../session/goal-sessions';
import { z } from 'zod';
import { listCacheFormat } from '../session/list-cache';
import { workItemDirs } from '../work-item/paths';
import { projectRecords } from '../work-item/registry';
import { waitingSchema, type Waiting } from '../work-item/schemas';
import { openWait } from '../work-item/waiting-view';
import type { SessionsContext } from './context';

/** One session that needs a person: a work item, or a goal session under the current directory. */
export interface InboxEntry {
  kind: 'work-item' | 'goal';
  /** The work item's ref, or the goal session's id. */
  session: string;
  reason: Waiting['reason'];
  /** What is asked, one line. */
  detail: string;
  since: string;
  /** The command that answers it from a terminal, or shows it whole. */
  next: string;
  /** What the session has spent so far (`unpriced`: a model with no price ran too); null before a turn ended. */
  spent: { cost_usd: number; unpriced: boolean } | null;
}

export interface Inbox {
  entries: InboxEntry[];
  /** Records that could not be read: named, never fatal. */
  invalid: { file: string; error: string }[];
}

/** What a person can run for each kind of wait. */
function nextStep(
  kind: InboxEntry['kind'],
  session: string,
  wait: Pick<Waiting, 'reason' | 'detail'>,
): string {
  const { reason } = wait;
  if (reason === 'budget') {
    // the wait's detail names the budget reached: the fleet's (--daily, --monthly) or the work item's own
    const fleet = /--daily|--monthly/.exec(wait.detail)?.[0];
    return `the-loop budget raise ${fleet ?? session} --to <USD>`;
  }
  if (kind === 'goal') return `loopy status ${session}`;
  if (reason === 'gate') return `the-loop sessions answer --work-item ${session} approve|reject`;
  if (reason === 'blocked') return `the-loop sessions start --work-item ${session}`;
  if (reason === 'permission') return `the-loop sessions answer --work-item ${session} allow|deny`;
  // a question is answered by the work item's next event (a comment, a Slack reply, or the terminal); stuck is looked at
  return `the-loop sessions attach --work-item ${session}`;
}

/**
 * Everything waiting for a person, oldest first, from files alone (no Temporal): the registry's open work items with
 * a recorded wait, and the goal sessions under `cwd` that a fault keeps blocked.
 */
export function readInbox(ctx: SessionsContext, cwd: string): Inbox {
  const { values: waits, invalid } = workItemWaits(workItemDirs(ctx.config, ctx.stateDir).registryDir);
  const entries: InboxEntry[] = waits.map(({ work_item: session, wait, spent }) => ({
    kind: 'work-item',
    session,
    ...wait,
    next: nextStep('work-item', session, wait),
    spent,
  }));
  entries.push(...blockedGoalSessions(cwd));
  entries.sort((a, b) => a.since.localeCompare(b.since) || a.session.localeCompare(b.session));
  return { entries, invalid };
}

/** What the inbox shows of a registry record that waits for a person: the wait, and what it has spent. */
const recordWaitSchema = z.object({
  work_item: z.string(),
  wait: waitingSchema,
  spent: z.object({ cost_usd: z.number(), unpriced: z.boolean() }).nullable(),
});
type RecordWait = z.infer<typeof recordWaitSchema>;
/** null for a record that waits for nobody (most of them): a few bytes each in the cache. */
const recordWaits = listCacheFormat('inbox/2', recordWaitSchema.nullable());

/**
 * The registry's open work items with a recorded wait, through the list cache (`.inbox-cache.json` in the registry
 * directory): a record is read again only when its file has changed.
 */
function workItemWaits(registryDir: string): { values: RecordWait[]; invalid: Inbox['invalid'] } {
  return projectRecords(registryDir, recordWaits, '.inbox-cache.json', (record) => {
    const wait = openWait(record);
    if (!wait) return null;
    const { spent } = record;
    return {
      work_item: record.work_item,
      wait,
      spent: spent ? { cost_usd: spent.usage.cost_usd, unpriced: spent.unpriced_models.length > 0 } : null,
    };
  });
}

function blockedGoalSessions(cwd: string): InboxEntry[] {
  const found: InboxEntry[] = [];
  for (const { id, state } of readGoalSessionSummaries(cwd)) {
    // a torn or foreign state.json has no state here: `loopy list` names it
    const wait = state ? goalWaiting(state) : null;
    if (!state || !wait) continue;
    const spent = { cost_usd: state.cost_usd, unpriced: false };
    found.push({ kind: 'goal', session: id, ...wait, next: nextStep('goal', id, wait), spent });
  }
  return found;
}

/** The key that tells one wait from another: a new wait of the same session is a new entry. */
export function inboxKey(entry: InboxEntry): string {
  return `${entry.kind}\u0000${entry.session}\u0000${entry.reason}\u0000${entry.since}`;
}
