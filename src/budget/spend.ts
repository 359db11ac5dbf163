import { addUsd } from '../pricing/money';
import { readSpentTurns, type SpentTurn } from './ledger';

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

/** What was spent, from the state directory's spend ledger: every work item and goal session its workers ran. */
export function readSpend(stateRoot: string): SpendReport {
  return summarizeSpend(readSpentTurns(stateRoot));
}
