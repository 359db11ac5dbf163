import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { usageError } from '../../../errors';
import { parsePort } from '../../../config/numbers';
import { logFormatOption, logLevelOption } from '../../log-options';
import { processIo } from '../../io';

function port(text: string): number {
  const n = parsePort(text);
  if (n === null) throw usageError(`--port must be a whole number from 0 to 65535, not '${text}'`);
  return n;
}

/** `the-loop board`: serve the board in the foreground (as `the-loop start` does in the background), or print a link. */
export function registerBoardCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('board')
    .description(
      'serve the board — every session, what waits for you, live — or with --link print a one-time login link',
    )
    .option('--port <n>', 'port to listen on (default: board.port; 0 here: any free port)', port)
    .option(
      '--host <address>',
      'address to bind (default: board.host); off loopback, board.token is required',
    )
    .option('--ready-file <path>', 'write this file once the board listens (used by `the-loop start`)')
    .option('--link', 'print a one-time link that logs a browser in to the running board (needs board.token)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (_options, command) => {
      const { run } = await import('./run.js');
      process.exitCode = await run(command.optsWithGlobals(), processIo);
    });
}
