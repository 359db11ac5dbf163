import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { processIo } from '../../io';
import { run } from './run';

export function registerBudgetCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('budget')
    .description(
      "what was spent, by day and by session: the state directory's work items and the goal sessions under the current directory",
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action(async (_options, command) => {
      process.exitCode = await run(command.optsWithGlobals(), processIo);
    });
}
