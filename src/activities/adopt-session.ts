import { ApplicationFailure } from '@temporalio/common';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { sessionPaths } from '../session/paths';
import { sessionFileSchema } from '../session/schemas';
import type { ActivityDeps } from './deps';

/** Why a host cannot take a session over: the move is refused and the session stays where it was. */
export const SESSION_NOT_ON_HOST = 'SessionNotOnHost';

export function createAdoptActivities(deps: ActivityDeps) {
  return {
    /**
     * A session moves to this host (`loopy move`): it runs here from now on only if its directory is reachable here,
     * at the same absolute path (a shared filesystem, or a copy), and is this session's. session.json then names this
     * host's queue. Never creates the directory: a session whose files are elsewhere must not start afresh here.
     */
    async adoptSession(args: {
      sessionId: string;
      sessionDir: string;
      hostQueue: string;
    }): Promise<{ hostId: string }> {
      const paths = sessionPaths(args.sessionDir);
      const refuse = (why: string) =>
        ApplicationFailure.create({
          type: SESSION_NOT_ON_HOST,
          message: `host ${deps.hostId} cannot take session ${args.sessionId}: ${why}`,
          nonRetryable: true,
        });
      let session;
      try {
        session = readJsonIfExists(paths.session, sessionFileSchema);
      } catch (error) {
        throw refuse(`${paths.session} cannot be read: ${(error as Error).message}`);
      }
      if (!session) throw refuse(`${paths.session} is not reachable there`);
      if (session.session_id !== args.sessionId)
        throw refuse(`${paths.session} belongs to session ${session.session_id}`);
      writeJsonAtomic(paths.session, sessionFileSchema, { ...session, host_queue: args.hostQueue });
      return { hostId: deps.hostId };
    },
  };
}
