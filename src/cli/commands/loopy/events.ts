import { readJsonl } from '../../../session/jsonl';
import { sessionPaths } from '../../../session/paths';
import { sessionEventSchema } from '../../../session/schemas';
import { EXIT } from '../../../errors';
import { followEvents, printEvent, type EventFormat } from '../../follow-session';
import { locateSession } from '../../locate-session';

/** `loopy events`: events.jsonl once, each seq printed once; --follow until the session stops (or Ctrl-C). */
export async function run(
  session: string | undefined,
  options: { follow?: boolean; format: EventFormat },
): Promise<number> {
  const located = await locateSession(process.cwd(), session);
  if (!options.follow) {
    const seen = new Set<number>();
    for (const event of readJsonl(sessionPaths(located.sessionDir).events, sessionEventSchema)) {
      if (seen.has(event.seq)) continue;
      seen.add(event.seq);
      printEvent(event, options.format);
    }
    return EXIT.ok;
  }
  const detach = new AbortController();
  process.once('SIGINT', () => detach.abort());
  await followEvents(located.sessionDir, options.format, { signal: detach.signal, untilStopped: true });
  return EXIT.ok;
}
