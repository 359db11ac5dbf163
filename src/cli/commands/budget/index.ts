import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { processIo } from '../../io';

/**
 * `the-loop budget`: `show` (the default: what was spent, and the budgets in force) and `raise`. Each verb's file
 * declares nothing itself; its run is loaded only when it runs.
 */
export function registerBudgetCommand(program: Command<[], GlobalOptions>): void {
  const budget = program
    .command('budget')
    .description('what was spent and the budgets in force (show, the default), and raising a budget (raise)')
    .configureHelp({ showGlobalOptions: true });
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
    .action(async (_options, command) => {
      const { run } = await import('./show.js');
      process.exitCode = await run(command.optsWithGlobals(), processIo);
    });
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
    .action(async (workItem, _options, command) => {
      const { run } = await import('./raise.js');
      process.exitCode = await run(workItem ?? null, command.optsWithGlobals(), processIo);
    });
}
