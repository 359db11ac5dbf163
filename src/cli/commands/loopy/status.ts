import { mergeHistory } from '../../../session/history';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT } from '../../../errors';
import { statusLines } from '../../format-session';
import { locateSession, type LocatedSession } from '../../locate-session';
import { loadSessionTree, renderSessionTree } from '../../session-tree';
import { readGoal, readState } from './session-files';
import type { SessionStateFile } from '../../../session/schemas/state';
import type { Io } from '../../io';
import { loadContext } from '../../load-context';

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
 * its files alone, without Temporal.
 */
export async function run(session: string | undefined, options: GoalStatusOptions, io: Io): Promise<number> {
  const ctx = await loadContext(options);
  const ended = await endedLocally(session);
  const connected = ended
    ? null
    : await (await import('../../../service/ensure-service.js')).connectExisting(ctx, 3000).catch(() => null);
  try {
    const client = connected?.client;
    const located =
      ended ?? (await locateSession(process.cwd(), session, client ? async () => client : undefined));
    const live = client ? await (await import('./live-state.js')).liveState(client, located.sessionId) : null;
    const projected = readState(located.sessionDir);
    const state = live ? withSums(live.state, projected) : projected;
    if (!state)
      throw new CliError(`session ${located.sessionId} has no state.json yet (is a worker running?)`);
    const link = connected
      ? (await import('../../../temporal/web-ui.js')).workflowUiLink(
          connected.uiAddress,
          connected.target.namespace,
          located.sessionId,
        )
      : null;
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
    await connected?.close();
  }
}
