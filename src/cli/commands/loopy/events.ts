import { InvalidArgumentError, Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT } from '../../../errors';
import type { EventFormat } from '../../follow-session';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type EventsOptions = GlobalOptions & {
  follow?: boolean;
  format: EventFormat;
  last: number;
  all?: boolean;
};

/**
 * How many of the newest events `loopy events` prints unless told otherwise: read from the end of events.jsonl, so
 * that the command takes as long at a long session's turn 5,000 as at its turn 10.
 */
const DEFAULT_LAST = 200;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive whole number');
  return n;
}

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('events')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .description(
      "print the session's newest events (events.jsonl); --follow keeps printing until the session stops",
    )
    .option('--follow', 'keep printing new events (tolerates a torn last line)')
    .option('--last <n>', 'print the newest n events', positiveInt, DEFAULT_LAST)
    .option('--all', 'print every event from the first')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'jsonl'] as const)
        .default('text' as const),
    )
    .action((session, _options, command) =>
      runWithProcessIo((options: EventsOptions, io) => run(session, options, io), command.optsWithGlobals()),
    );
}

/**
 * `loopy events`: the newest events of events.jsonl (every one with --all), each seq printed once; --follow goes on
 * from there until the session stops (or Ctrl-C).
 */
export async function run(session: string | undefined, options: EventsOptions, io: Io): Promise<number> {
  // The session's files are all it reads, but a --config that does not load is refused as by every other verb.
  await loadContext(options);
  const { readJsonl, readTailJsonl } = await import('../../../session/jsonl.js');
  const { sessionPaths } = await import('../../../session/paths.js');
  const { sessionEventSchema } = await import('../../../session/schemas/event.js');
  const { followEvents, printEvent } = await import('../../follow-session.js');
  const { locateSession } = await import('../../locate-session.js');
  const located = await locateSession(process.cwd(), session);
  const file = sessionPaths(located.sessionDir).events;
  // --all --follow: the follower reads the file from its beginning.
  const { records, end } =
    options.all === true
      ? { records: options.follow ? [] : readJsonl(file, sessionEventSchema), end: 0 }
      : readTailJsonl(file, sessionEventSchema, options.last);
  const seen = new Set<number>();
  for (const event of records) {
    if (seen.has(event.seq)) continue;
    seen.add(event.seq);
    printEvent(event, options.format, io);
  }
  // A session that has stopped has nothing more to follow.
  if (!options.follow || records.some((event) => event.type === 'session_stopped')) return EXIT.ok;
  const detach = new AbortController();
  process.once('SIGINT', () => detach.abort());
  await followEvents(located.sessionDir, options.format, io, {
    signal: detach.signal,
    untilStopped: true,
    fromOffset: end,
  });
  return EXIT.ok;
}
