import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addUsd } from '../pricing/money';
import { readJsonIfExists } from '../session/json-file';
import { readJsonl } from '../session/jsonl';
import { sessionPaths, sessionsRoot } from '../session/paths';
import { sessionStateFileSchema } from '../session/schemas';
import { eventLogFile, workItemDirs } from '../work-item/paths';
import { listRecords } from '../work-item/registry';
import { workItemEventSchema } from '../work-item/schemas';
import type { SessionsContext } from './context';

/** One turn that spent money: when it ended, whose it was, what it cost. */
export interface SpentTurn {
  /** When the turn ended (ISO). */
  at: string;
  kind: 'work-item' | 'goal';
  /** The work item's ref, or the goal session's id (a child's: `parent/child`). */
  session: string;
  cost_usd: number;
  /** A model with no price ran in the turn: its cost leaves that out. */
  unpriced: boolean;
}

export interface SpendLine {
  cost_usd: number;
  turns: number;
  unpriced_turns: number;
}

export interface SpendReport {
  /** By UTC day, oldest first. */
  days: (SpendLine & { day: string })[];
  /** By session, the most expensive first. */
  sessions: (SpendLine & { kind: SpentTurn['kind']; session: string })[];
  total: SpendLine;
}

function add(line: SpendLine, turn: SpentTurn): void {
  line.cost_usd = addUsd(line.cost_usd, turn.cost_usd);
  line.turns += 1;
  if (turn.unpriced) line.unpriced_turns += 1;
}

const empty = (): SpendLine => ({ cost_usd: 0, turns: 0, unpriced_turns: 0 });

/** The turns added up by day, by session and in all. */
export function summarizeSpend(turns: readonly SpentTurn[]): SpendReport {
  const days = new Map<string, SpendLine & { day: string }>();
  const sessions = new Map<string, SpendLine & { kind: SpentTurn['kind']; session: string }>();
  const total = empty();
  for (const turn of turns) {
    const day = turn.at.slice(0, 10);
    const byDay = days.get(day) ?? { day, ...empty() };
    days.set(day, byDay);
    const key = `${turn.kind} ${turn.session}`;
    const bySession = sessions.get(key) ?? { kind: turn.kind, session: turn.session, ...empty() };
    sessions.set(key, bySession);
    for (const line of [byDay, bySession, total]) add(line, turn);
  }
  return {
    days: [...days.values()].sort((a, b) => a.day.localeCompare(b.day)),
    sessions: [...sessions.values()].sort(
      (a, b) => b.cost_usd - a.cost_usd || a.session.localeCompare(b.session),
    ),
    total,
  };
}

/** Every hosted turn of the state directory's work items, from their event logs (`turn.spent`). */
function workItemTurns(ctx: SessionsContext): SpentTurn[] {
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const turns: SpentTurn[] = [];
  for (const record of listRecords(dirs.registryDir).records) {
    for (const event of readJsonl(eventLogFile(dirs, record.slug), workItemEventSchema)) {
      if (event.type !== 'turn.spent') continue;
      const usage = event.data?.['usage'] as { cost_usd?: unknown } | undefined;
      turns.push({
        at: event.ts,
        kind: 'work-item',
        session: record.work_item,
        cost_usd: typeof usage?.cost_usd === 'number' ? usage.cost_usd : 0,
        unpriced: Array.isArray(event.data?.['unpriced_models']),
      });
    }
  }
  return turns;
}

/** Every turn of the goal sessions in `root` and, under each, of its children. */
function goalTurns(root: string, prefix = ''): SpentTurn[] {
  if (!existsSync(root)) return [];
  const turns: SpentTurn[] = [];
  for (const id of readdirSync(root)) {
    const paths = sessionPaths(join(root, id));
    let state;
    try {
      state = readJsonIfExists(paths.state, sessionStateFileSchema);
    } catch {
      continue; // a torn or foreign state.json: `loopy list` names it
    }
    for (const entry of state?.history ?? []) {
      if (!entry.usage) continue;
      turns.push({
        at: entry.finished_at,
        kind: 'goal',
        session: `${prefix}${id}`,
        cost_usd: entry.usage.cost_usd,
        unpriced: false,
      });
    }
    turns.push(...goalTurns(paths.childrenDir, `${prefix}${id}/`));
  }
  return turns;
}

/** What was spent: the state directory's work items and the goal sessions under `cwd`, from their files. */
export function readSpend(ctx: SessionsContext, cwd: string): SpendReport {
  return summarizeSpend([...workItemTurns(ctx), ...goalTurns(sessionsRoot(cwd))]);
}
