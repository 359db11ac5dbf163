import { mergeHistory } from '../../../session/history';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT } from '../../../errors';
import { statusLines } from '../../format-session';
import { locateSession, type LocatedSession } from '../../locate-session';
import { loadSessionTree, renderSessionTree } from '../../session-tree';
import { readGoal, readState } from './session-files';
import type { Io } from '../../io';
import { loadContext } from '../../load-context';
import type { CliContext } from '../../../service/context';
import type { SessionStateFile } from '../../../session/schemas/state';
import { resolveTarget } from '../../../temporal/target';
import { webUiAddress, workflowUiLink } from '../../../temporal/web-ui';
import { liveStatusSocket } from '../../../worker/socket-dir';
import { askLocalWorker } from './worker-status';

type Connected = Awaited<ReturnType<typeof import('../../../service/connect-existing').connectExisting>>;

export type StatusFormat = 'table' | 'json' | 'text';

export type GoalStatusOptions = GlobalOptions & { format: StatusFormat };

/** A session under the current directory whose state.json says it has stopped: nothing live to ask. */
async function endedLocally(session: string | undefined): Promise<LocatedSession | null> {
  try {
    const located = await locateSession(process.cwd(), session);
    return readState(located.sessionDir)?.status === 'stopped' ? located : null;
  } catch {
    return null;
  }
}

/** A running session's live state: from the local worker when it answers, else through a client of our own. */
async function askForLiveState(
  ctx: CliContext,
  sessionId: string,
  connect: () => Promise<Connected | null>,
): Promise<SessionStateFile | null> {
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const fromWorker = await askLocalWorker(liveStatusSocket(ctx.stateDir), {
    sessionId,
    address: target.address,
    namespace: target.namespace,
  });
  if (fromWorker) return fromWorker;
  const connected = await connect();
  if (!connected) return null;
  return (await (await import('./live-state.js')).liveState(connected.client, sessionId))?.state ?? null;
}

/**
 * The live state with state.json's history: the workflow holds only the entries of its run and the newest ones it
 * continued from, state.json the newest entries and the sums of all the others (history.jsonl holds them all). The
 * entries those sums cover are left out: each turn is counted once.
 */
function withSums(live: SessionStateFile, projected: SessionStateFile | null): SessionStateFile {
  const earlier = projected?.earlier_history;
  const history = mergeHistory(projected?.history ?? [], live.history).filter(
    (entry) => entry.iteration > (earlier?.through ?? 0),
  );
  return earlier ? { ...live, history, earlier_history: earlier } : { ...live, history };
}

/**
 * `loopy status [session]` (and `the-loop status <session>`), declared with the service's verbs
 * (service/status.ts): the live state when a worker answers, else state.json. A session that has ended is read from
 * its files alone, without Temporal. The worker of this state directory is asked first: the answer then costs no
 * Temporal client here (loading one is most of what the command would cost).
 */
export async function run(session: string | undefined, options: GoalStatusOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const ended = await endedLocally(session);
  // Connected only when needed: to find a session by its id in Temporal, or when no local worker answers.
  const client: { connecting: Promise<Connected | null> | null } = { connecting: null };
  const connect = () =>
    (client.connecting ??= import('../../../service/connect-existing.js').then(({ connectExisting }) =>
      connectExisting(ctx, 3000).catch(() => null),
    ));
  try {
    const located =
      ended ?? (await locateSession(process.cwd(), session, async () => (await connect())?.client ?? null));
    const liveState = ended ? null : await askForLiveState(ctx, located.sessionId, connect);
    const live = liveState ? { state: liveState } : null;
    const projected = readState(located.sessionDir);
    const state = live ? withSums(live.state, projected) : projected;
    if (!state)
      throw new CliError(`session ${located.sessionId} has no state.json yet (is a worker running?)`);
    const link = live ? webUiLink(ctx, located.sessionId) : null;
    if (options.format === 'json') {
      io.out(
        JSON.stringify(
          { session_dir: located.sessionDir, source: live ? 'live' : 'state.json', state },
          null,
          2,
        ),
      );
      return EXIT.ok;
    }
    for (const line of statusLines(located.sessionDir, readGoal(located.sessionDir), state, link))
      io.out(line);
    if (!live) {
      io.out(
        ended
          ? 'source      state.json (the session has ended)'
          : 'source      state.json (no worker answered; live state unavailable)',
      );
    }
    const liveStates = new Map(live ? [[located.sessionId, live.state]] : []);
    const tree = loadSessionTree(located.sessionDir, { liveStates });
    if (tree.children.length > 0) {
      io.out('');
      // io.out adds the newline the rendered tree ends with
      io.out(renderSessionTree(tree).replace(/\n$/, ''));
    }
    return EXIT.ok;
  } finally {
    await (await client.connecting)?.close();
  }
}

function webUiLink(ctx: CliContext, sessionId: string): string | null {
  const target = resolveTarget(ctx.config, ctx.stateDir);
  return workflowUiLink(webUiAddress(ctx.config, target), target.namespace, sessionId);
}
