import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../../../errors';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('temporal-server')
    .description(
      'find or build the pinned Temporal server and temporal-sql-tool (for a cluster of your own) and print their paths',
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop temporal-server`: the server's path, then temporal-sql-tool's; progress goes to the log. */
export async function run(options: GlobalOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const { resolveTemporalServer } = await import('../../../service/resolve-server.js');
  try {
    const built = await resolveTemporalServer({ onProgress: (line) => ctx.logger.info(line) });
    io.out(`${built.server}\n${built.sqlTool}`);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.failure);
  }
  return EXIT.ok;
}
