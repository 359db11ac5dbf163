import { Option, type Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../../../errors';
import { formatUsd } from '../../../pricing/money';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { usdArgument } from '../../usd-argument';

export type BudgetRaiseOptions = GlobalOptions & { daily?: true; monthly?: true; to?: string; by?: string };

export function declareCommand(budget: Command<[], GlobalOptions>): void {
  budget
    .command('raise')
    .description(
      "raise a work item's budget, or the fleet's for today or this month; the sessions waiting at a budget go on",
    )
    .argument('[work-item]', 'the work item whose own budget to raise (e.g. github:octo/repo#12)')
    .addOption(new Option('--daily', "the fleet's budget for today (UTC)").conflicts('monthly'))
    .addOption(new Option('--monthly', "the fleet's budget for this month (UTC)").conflicts('daily'))
    .addOption(new Option('--to <usd>', 'the new limit, in USD').conflicts('by'))
    .addOption(new Option('--by <usd>', 'how much to add to the limit in force, in USD').conflicts('to'))
    .action((workItem, _options, command) =>
      runWithProcessIo(
        (options: BudgetRaiseOptions, io) => run(workItem ?? null, options, io),
        command.optsWithGlobals(),
      ),
    );
}

/** `the-loop budget raise [REF] (--daily|--monthly) (--to USD|--by USD)`: exit 0 once raised and told. */
export async function run(workItem: string | null, options: BudgetRaiseOptions, io: Io): Promise<number> {
  const period = options.daily ? 'daily' : options.monthly ? 'monthly' : null;
  if ((workItem === null) === (period === null)) {
    throw new CliError(
      'say whose budget to raise: a work item (`budget raise github:owner/repo#12`), or --daily or --monthly for the fleet',
      EXIT.usage,
    );
  }
  if (options.to === undefined && options.by === undefined) {
    throw new CliError('say how much: --to <USD> (the new limit) or --by <USD> (added to it)', EXIT.usage);
  }
  const change =
    options.to !== undefined
      ? { to: usdArgument('--to', options.to) }
      : { by: usdArgument('--by', options.by ?? '') };
  const { sessionsContext } = await import('../sessions/shared.js');
  const { raiseBudget } = await import('../../../use-cases/raise-budget.js');
  const target = workItem !== null ? { workItem } : { period: period as 'daily' | 'monthly' };
  const result = await raiseBudget(await sessionsContext(options), target, change);
  const whose = result.scope === 'workItem' ? result.of : `the fleet's (${result.of}, UTC)`;
  const from = result.from === null ? 'no limit' : formatUsd(result.from);
  io.out(
    `raised ${whose} budget from ${from} to ${formatUsd(result.to)}; spent so far ${formatUsd(result.spent)}`,
  );
  if (result.spent >= result.to) {
    io.err(
      `warning: ${formatUsd(result.spent)} is already spent: the sessions held at this budget still wait`,
    );
  }
  if (result.told.length > 0) io.out(`told to go on: ${result.told.join(', ')}`);
  return EXIT.ok;
}
