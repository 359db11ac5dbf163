import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT } from '../../../errors';
import type { EventFormat } from '../../follow-session';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type EventsOptions = GlobalOptions & { follow?: boolean; format: EventFormat };

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('events')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .description("print the session's events.jsonl; --follow keeps printing until the session stops")
    .option('--follow', 'keep printing new events (tolerates a torn last line)')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'jsonl'] as const)
        .default('text' as const),
    )
    .action((session, _options, command) =>
      runWithProcessIo((options: EventsOptions, io) => run(session, options, io), command.optsWithGlobals()),
    );
}

/** `loopy events`: events.jsonl once, each seq printed once; --follow until the session stops (or Ctrl-C). */
export async function run(session: string | undefined, options: EventsOptions, io: Io): Promise<number> {
  // The session's files are all it reads, but a --config that does not load is refused as by every other verb.
  await loadContext(options);
  const { readJsonl } = await import('../../../session/jsonl.js');
  const { sessionPaths } = await import('../../../session/paths.js');
  const { sessionEventSchema } = await import('../../../session/schemas/event.js');
  const { followEvents, printEvent } = await import('../../follow-session.js');
  const { locateSession } = await import('../../locate-session.js');
  const located = await locateSession(process.cwd(), session);
  if (!options.follow) {
    const seen = new Set<number>();
    for (const event of readJsonl(sessionPaths(located.sessionDir).events, sessionEventSchema)) {
      if (seen.has(event.seq)) continue;
      seen.add(event.seq);
      printEvent(event, options.format, io);
    }
    return EXIT.ok;
  }
  const detach = new AbortController();
  process.once('SIGINT', () => detach.abort());
  await followEvents(located.sessionDir, options.format, io, { signal: detach.signal, untilStopped: true });
  return EXIT.ok;
}
