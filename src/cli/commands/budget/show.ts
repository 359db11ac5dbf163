import { Option, type Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import { formatUsd } from '../../../pricing/money';
import type { GlobalOptions } from '../../../service/context';
import type { SpendLine } from '../../../budget/spend';
import type { BudgetsInForce } from '../../../budget/wait';
import { runWithProcessIo, type Io } from '../../io';
import { printable } from '../../inbox-lines';
import { alignColumns } from '../../table';

export type BudgetShowOptions = GlobalOptions & { format: 'table' | 'json' };

/** `$1.23`, and how many of the turns ran a model with no price (their cost is not in it). */
const cost = (line: SpendLine) =>
  `${formatUsd(line.cost_usd)}${line.unpriced_turns > 0 ? ` (+${line.unpriced_turns} unpriced)` : ''}`;

const limit = (usd: number | null) => (usd === null ? 'no limit' : formatUsd(usd));

/** The budgets in force, and what the fleet spent against its own. */
function budgetLines(budgets: BudgetsInForce): string[] {
  const { daily, monthly } = budgets;
  const own = Object.entries(budgets.work_items).map(([item, usd]) => `${printable(item)} ${formatUsd(usd)}`);
  return [
    `budget today (${daily.day}, UTC): ${formatUsd(daily.spent)} of ${limit(daily.limit)}`,
    `budget this month (${monthly.month}): ${formatUsd(monthly.spent)} of ${limit(monthly.limit)}`,
    `budget per work item: ${limit(budgets.work_item_default)}${own.length > 0 ? `; own: ${own.join(', ')}` : ''}`,
  ];
}

/** The default verb: `the-loop budget` alone runs it. */
export function declareCommand(budget: Command<[], GlobalOptions>): void {
  budget
    .command('show', { isDefault: true })
    .description(
      'what was spent, by day and by session, across every work item and goal session of the state directory, and the budgets in force',
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/**
 * `the-loop budget [show]`: spend by day and by session, from the state directory's spend ledger alone (no
 * Temporal), and the budgets in force; exit 0, also when nothing was spent.
 */
export async function run(options: BudgetShowOptions, io: Io): Promise<number> {
  const { createContext } = await import('../../../service/context.js');
  const { readSpend } = await import('../../../budget/spend.js');
  const { workItemDirs } = await import('../../../work-item/paths.js');
  const ctx = createContext({ config: options.config });
  const { budgetsInForce } = await import('../../../budget/wait.js');
  const { stateRoot } = workItemDirs(ctx.config, ctx.stateDir);
  const report = readSpend(stateRoot);
  const budgets = budgetsInForce(ctx.config, stateRoot);
  if (options.format === 'json') {
    io.out(JSON.stringify({ ...report, budgets }, null, 2));
    return EXIT.ok;
  }
  if (report.total.turns === 0) {
    io.err('nothing spent yet: no turn of a work item or of a goal session here has ended');
    io.out(budgetLines(budgets).join('\n'));
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
      ...budgetLines(budgets),
    ].join('\n'),
  );
  return EXIT.ok;
}
