import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('temporal-cli')
    .description('find, build or download the pinned Temporal CLI and print its path')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop temporal-cli`: the pinned Temporal CLI's path; progress goes to the log. */
export async function run(options: GlobalOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const { resolveTemporalCli } = await import('../../../service/resolve-cli.js');
  const cli = await resolveTemporalCli({ onProgress: (line) => ctx.logger.info(line) });
  io.out(cli.path);
  return EXIT.ok;
}
