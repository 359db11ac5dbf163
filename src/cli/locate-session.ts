import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { listSessionIds } from '../session/goal-sessions';
import { sessionsRoot } from '../session/paths';
import { isSessionId } from '../session/session-id';
import { CliError, EXIT } from '../errors';

export interface LocatedSession {
  sessionId: string;
  sessionDir: string;
}

/**
 * A session id under the current directory, the most recent one when none is given, or (for ids) Temporal's memo,
 * asked through the client `client` gives (null: no Temporal to ask).
 */
export async function locateSession(
  cwd: string,
  id: string | undefined,
  client?: () => Promise<Client | null>,
): Promise<LocatedSession> {
  const root = sessionsRoot(cwd);
  if (id === undefined) {
    const latest = listSessionIds(cwd).at(-1);
    if (!latest) {
      throw new CliError(`no sessions under ${root} — start one with \`loopy run --goal …\``, EXIT.usage);
    }
    return { sessionId: latest, sessionDir: join(root, latest) };
  }
  if (!isSessionId(id)) {
    throw new CliError(
      `'${id}' is not a session id (expected YYYYMMDD_HHMMSS_<goal_hash>_<random>)`,
      EXIT.usage,
    );
  }
  if (existsSync(join(root, id, 'session.json'))) return { sessionId: id, sessionDir: join(root, id) };
  // Outside the try: a loader that cannot load (the start-up snapshot's hand-over) is not an unknown session.
  const temporal = client ? await client() : null;
  if (temporal) {
    try {
      const description = await temporal.workflow.getHandle(id).describe();
      const memoDir = description.memo?.sessionDir;
      if (typeof memoDir === 'string') return { sessionId: id, sessionDir: memoDir };
    } catch {
      // not known to Temporal either
    }
  }
  throw new CliError(
    `unknown session '${id}': not under ${root} and not known to Temporal — \`loopy list\` shows sessions`,
    EXIT.usage,
  );
}
