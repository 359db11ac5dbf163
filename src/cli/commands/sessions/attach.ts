import { EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type AttachOptions = SessionsOptions & { workItem: string; readOnly?: boolean };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('attach')
    .description('attach to the tmux session of a work item (always read-only once it is closed)')
    .requiredOption('--work-item <ref>', 'which session to attach to')
    .option('--read-only', 'observe without a keyboard (tmux attach -r)')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `sessions attach`: this terminal joins the work item's tmux session. */
export async function run(options: AttachOptions, io: Io): Promise<number> {
  const { attachSession } = await import('../../../use-cases/attach.js');
  await attachSession(await sessionsContext(options), options.workItem, {
    readOnly: options.readOnly === true,
    warn: io.err,
  });
  return EXIT.ok;
}
