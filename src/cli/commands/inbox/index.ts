import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { processIo } from '../../io';
import { run } from './run';

export function registerInboxCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('inbox')
    .description(
      'every session that waits for a person — permission, question, gate, stuck, blocked —, oldest first',
    )
    .option('--follow', 'stay open and print each new wait and each wait that ends, until Ctrl-C')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action(async (_options, command) => {
      process.exitCode = await run(command.optsWithGlobals(), processIo);
    });
}
