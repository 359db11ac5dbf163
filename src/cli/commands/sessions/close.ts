import { Option } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type CloseOptions = SessionsOptions & { workItem: string; keepTmux?: boolean; killTmux?: boolean };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('close')
    .description('close a work item session (the harness is ended; tmux kept or killed)')
    .requiredOption('--work-item <ref>', 'which session to close')
    .addOption(new Option('--keep-tmux', 'keep the tmux session (transcript readable)').conflicts('killTmux'))
    .addOption(new Option('--kill-tmux', 'end the tmux session for good').conflicts('keepTmux'))
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `sessions close`: through the workflow when one runs, else on this machine. */
export async function run(options: CloseOptions, io: Io): Promise<number> {
  const { closeWorkItemSession } = await import('../../../use-cases/close.js');
  const keepTmux = options.keepTmux ? true : options.killTmux ? false : null;
  const { workItem, end } = await closeWorkItemSession(
    await sessionsContext(options),
    options.workItem,
    keepTmux,
  );
  if (end.by === 'nothing') {
    if (end.why === 'no-record')
      throw new CliError(`${workItem}: no session record on this machine`, EXIT.failure);
    io.out(`${workItem} is already closed`);
    return EXIT.ok;
  }
  for (const line of end.lines) io.out(line);
  io.out(`closed ${workItem}`);
  return EXIT.ok;
}
