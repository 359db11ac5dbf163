import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';

export type StatusOptions = GlobalOptions & { format: 'text' | 'table' | 'json' };

/** What runs `status`: service/status.ts's run, or the start-up snapshot's (goal sessions only). */
export type RunStatus = (
  session: string | undefined,
  invokedAsLoopy: boolean,
  options: StatusOptions,
  io: Io,
) => Promise<number>;

export function declareStatusCommand(program: Command<[], GlobalOptions>, run: RunStatus): void {
  program
    .command('status')
    .argument('[session]', 'a goal session id: show that session (loopy status shows the most recent one)')
    .description(
      'the-loop: what runs, where, which Temporal it talks to, the Web UI; loopy or with a session: that session',
    )
    .addOption(
      new Option('--format <format>', 'text or json (table or json for a session)')
        .choices(['text', 'table', 'json'] as const)
        .default('text' as const),
    )
    .action((session, _options, command) =>
      runWithProcessIo(
        (options: StatusOptions, io) => run(session, program.name() === 'loopy', options, io),
        command.optsWithGlobals(),
      ),
    );
}
