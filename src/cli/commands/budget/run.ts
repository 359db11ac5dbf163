import { EXIT } from '../../../errors';
import { formatUsd } from '../../../pricing/money';
import type { GlobalOptions } from '../../../service/context';
import type { SpendLine } from '../../../sessions/spend';
import type { Io } from '../../io';
import { printable } from '../../inbox-lines';
import { alignColumns } from '../../table';

export type BudgetOptions = GlobalOptions & { format: 'table' | 'json' };

/** `$1.23`, and how many of the turns ran a model with no price (their cost is not in it). */
const cost = (line: SpendLine) =>
  `${formatUsd(line.cost_usd)}${line.unpriced_turns > 0 ? ` (+${line.unpriced_turns} unpriced)` : ''}`;

/** `the-loop budget`: spend by day and by session, from the files alone (no Temporal); exit 0, also when none. */
export async function run(options: BudgetOptions, io: Io, cwd = process.cwd()): Promise<number> {
  const { createContext } = await import('../../../service/context.js');
  const { readSpend } = await import('../../../sessions/spend.js');
  const ctx = createContext({ config: options.config });
  const report = readSpend({ config: ctx.config, stateDir: ctx.stateDir }, cwd);
  if (options.format === 'json') {
    io.out(JSON.stringify(report, null, 2));
    return EXIT.ok;
  }
  if (report.total.turns === 0) {
    io.err('nothing spent yet: no turn of a work item or of a goal session here has ended');
    return EXIT.ok;
  }
  const days = report.days.map((d) => [d.day, cost(d), String(d.turns)]);
  const sessions = report.sessions.map((s) => [printable(s.session), s.kind, cost(s), String(s.turns)]);
  io.out(
    [
      ...alignColumns([['DAY (UTC)', 'COST', 'TURNS'], ...days]),
      '',
      ...alignColumns([['SESSION', 'KIND', 'COST', 'TURNS'], ...sessions]),
      '',
      `total: ${cost(report.total)} over ${report.total.turns} turn${report.total.turns === 1 ? '' : 's'}`,
    ].join('\n'),
  );
  return EXIT.ok;
}
