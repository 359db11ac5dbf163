import type { Command } from '@commander-js/extra-typings';
import type { goalSession } from '../../../workflows/goal-session/workflow';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('update')
    .argument('<session>', 'session id')
    .argument('<text...>', 'the request; appended to updates_from_user.md')
    .description(
      "append a request to the session's updates_from_user.md: the next iteration's highest-priority input",
    )
    .action((session, words, _options, command) =>
      runWithProcessIo(
        (options: GlobalOptions, io) => run(session, words, options, io),
        command.optsWithGlobals(),
      ),
    );
}

/** `loopy update`: appends to updates_from_user.md and tells the workflow how many bytes arrived. */
export async function run(session: string, words: string[], options: GlobalOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const text = words.join(' ').trim();
  if (!text) throw usageError('the update is empty: say what should change');
  const { connectExisting } = await import('../../../service/connect-existing.js');
  const { locateSession } = await import('../../locate-session.js');
  const connected = await connectExisting(ctx);
  try {
    const located = await locateSession(process.cwd(), session, async () => connected.client);
    const handle = connected.client.workflow.getHandle<typeof goalSession>(located.sessionId);
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      throw new CliError(
        `session ${located.sessionId} has ended; nothing would read the update`,
        EXIT.failure,
      );
    }
    const { sendUserUpdate } = await import('../../../use-cases/goal-control.js');
    const file = await sendUserUpdate(handle, located.sessionDir, text);
    io.out(`update appended to ${file}; the next iteration reads it first`);
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
