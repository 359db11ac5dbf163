import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { appendLine } from '../session/atomic';
import { readJsonl } from '../session/jsonl';

/**
 * <state.root>/spend/<YYYY-MM>.jsonl: one line per turn that ran, of every work item and goal session whose worker
 * uses this state directory, by the month it ended in (UTC). The fleet budget and `the-loop budget` read it. A turn
 * may be appended more than once (a worker that restarts, a retried report): readers count each `turn` once.
 */
export const spentTurnSchema = z.object({
  /** When the turn ended (ISO, UTC). */
  at: z.iso.datetime({ offset: true }),
  kind: z.enum(['work-item', 'goal']),
  /** The work item's ref, or the goal session's id (a child's: `parent/child`). */
  session: z.string().min(1),
  /** What names the turn once: its session directory and iteration. */
  turn: z.string().min(1),
  cost_usd: z.number().nonnegative(),
  /** A model with no price ran in the turn: its cost leaves that out. */
  unpriced: z.boolean(),
});
export type SpentTurn = z.infer<typeof spentTurnSchema>;

const spendDir = (stateRoot: string) => join(stateRoot, 'spend');
const monthFile = (stateRoot: string, month: string) => join(spendDir(stateRoot), `${month}.jsonl`);

/** The name of a turn in the ledger. */
export const turnKey = (sessionDir: string, iteration: number) => `${sessionDir}#${iteration}`;

/** Appends turns to the months they ended in, each line whole and fsynced. */
export function appendSpentTurns(stateRoot: string, turns: readonly SpentTurn[]): void {
  for (const turn of turns) {
    appendLine(monthFile(stateRoot, turn.at.slice(0, 7)), JSON.stringify(spentTurnSchema.parse(turn)));
  }
}

/** The turns of the given months (`YYYY-MM`; all months when omitted), each once, in the order they were written. */
export function readSpentTurns(stateRoot: string, months?: readonly string[]): SpentTurn[] {
  let names: string[];
  try {
    names = readdirSync(spendDir(stateRoot)).filter((name) => /^\d{4}-\d{2}\.jsonl$/.test(name));
  } catch {
    return [];
  }
  const wanted = months ? names.filter((name) => months.includes(name.slice(0, 7))) : names;
  const seen = new Set<string>();
  const turns: SpentTurn[] = [];
  for (const name of wanted.sort()) {
    for (const turn of readJsonl(join(spendDir(stateRoot), name), spentTurnSchema)) {
      if (seen.has(turn.turn)) continue;
      seen.add(turn.turn);
      turns.push(turn);
    }
  }
  return turns;
}
