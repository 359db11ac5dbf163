import type { Client } from '@temporalio/client';
import type { PaneState, PendingTurn } from '../work-item/host/pane-state';
import { Tmux } from '../work-item/tmux';
import { interruptionAfter, sizeOrZero } from '../work-item/transcript-interruption';
import { authFailureAfter } from '../work-item/claude-debug-log';
import { authFailureMessage } from '../harness/refused-credential';
import type { PaneWaitReason } from '../workflows/work-item/messages';
import type { PaneFiles } from './pane-files';
import type { PaneWaits } from './pane-waits';
import type { TurnEnder } from './end-turn';

/** Often enough for a one-minute heartbeat timeout, rarely enough to cost nothing. */
const HEARTBEAT_EVERY_MS = 5_000;
/** A dead pane's last lines, in its turn's failure. */
const LAST_LINES = 20;
/** The failure type of a delivered turn whose credential the model API refused: the delivery is not retried. */
const CREDENTIAL_REFUSED = 'HarnessCredentialRefused';

export interface TurnHeartbeat {
  /** Heartbeats the pane's pending turn every few seconds, until it has none. */
  keepBeating(workItem: string): void;
  /** A turn began or ended: the watch for a turn that stopped moving starts over. */
  restartWatch(workItem: string): void;
  stop(): void;
}

/**
 * While a delivered turn runs, its worker heartbeats its activity and watches its pane: a pane that died fails the
 * turn, a person's Esc (claude runs no Stop hook then) ends it, a credential the model API refused fails it for good,
 * and a transcript that stops growing makes the turn a `stuck` wait for a person.
 */
export function turnHeartbeat(deps: {
  client: Client;
  files: PaneFiles;
  turns: TurnEnder;
  waits: PaneWaits;
  /** How long a running turn's transcript may stay the same size before the turn shows as stuck. */
  stuckAfterMs: number;
  /** The pane's held permission prompt (if any) is let go: the turn that asked is over. */
  releaseAsk(workItem: string): void;
  mirror?: (workItem: string, text: string) => void;
  onWaiting?: (workItem: string, kind: PaneWaitReason, message: string) => void;
  log(line: string): void;
}): TurnHeartbeat {
  const { client, files, stuckAfterMs, log } = deps;
  const { token, endTurn } = deps.turns;
  const { endWait, signalWaiting } = deps.waits;
  /** Heartbeats the pending turn of one pane while the pane lives; a dead pane fails the turn with its last lines. */
  const beating = new Map<string, NodeJS.Timeout>();
  function keepBeating(workItem: string): void {
    const file = files.fileOf(workItem);
    if (beating.has(file)) return;
    const timer = setInterval(() => {
      void beat(workItem, file).catch((error: unknown) => log(`${workItem}: ${(error as Error).message}`));
    }, HEARTBEAT_EVERY_MS);
    beating.set(file, timer);
  }
  async function beat(workItem: string, file: string): Promise<void> {
    const state = await files.read(file);
    const pending = state?.pending;
    if (!pending) {
      clearInterval(beating.get(file));
      beating.delete(file);
      return;
    }
    const tmux = new Tmux(pending.socket, process.env);
    const pane = await tmux.pane(pending.target);
    if (pane && !pane.dead) {
      const taskToken = await token(pending);
      if (taskToken) await client.activity.heartbeat(taskToken).catch(() => undefined);
      if (await refusedCredential(workItem, state, pending)) return;
      const { transcript } = state;
      // until its turn-started report, the transcript's offset is the last turn's: its Esc marker is not this turn's
      if (!transcript || transcript.event_id !== pending.event_id) return;
      const size = await sizeOrZero(transcript.path);
      const still = observe(workItem, size);
      // Esc ends a turn with no Stop hook: the marker in the transcript's new part ends it here
      const marker = still ? null : await interruptionAfter(transcript.path, transcript.offset, size);
      if (marker === null) return watchProgress(workItem, still);
      deps.releaseAsk(workItem);
      const wasWaiting = await files.update(workItem, async (current) => {
        if (current.pending?.event_id !== pending.event_id) return false;
        const waited = current.waiting !== null;
        current.turn_running = false;
        current.waiting = null;
        await endTurn(current, { interrupted: marker });
        return waited;
      });
      // the prompt it interrupted is gone with it
      if (wasWaiting) await signalWaiting(workItem, null);
      return;
    }
    const lines = pane ? (await tmux.capture(pending.target).catch(() => '')).trimEnd() : '';
    const last = lines.split('\n').slice(-LAST_LINES).join('\n');
    await files.update(workItem, (current) =>
      endTurn(current, {
        error: `the pane ${pending.target} died during turn ${pending.iteration}${last ? `; its last lines:\n${last}` : ''}`,
      }),
    );
  }

  /**
   * A turn whose model calls the API refused for their credential fails at the first refusal (claude would retry
   * ten times over three minutes): the delivery fails for good, and the session waits, blocked, with what to fix.
   */
  async function refusedCredential(
    workItem: string,
    seen: PaneState,
    pending: PendingTurn,
  ): Promise<boolean> {
    if (!seen.turn_running || seen.debug_offset === undefined) return false;
    const failure = await authFailureAfter(files.debugLogOf(workItem), seen.debug_offset);
    if (!failure) return false;
    const error = authFailureMessage('claude', failure, 'ANTHROPIC_API_KEY');
    log(`${workItem}: turn ${pending.iteration}: ${error}`);
    await files.update(workItem, async (current) => {
      if (current.pending?.event_id !== pending.event_id) return;
      current.turn_running = false;
      await endTurn(current, { error, type: CREDENTIAL_REFUSED });
    });
    // claude would go on retrying, and a retry that got through after a fix would run the turn a second time
    await new Tmux(pending.socket, process.env)
      .interrupt(pending.target, `the-loop-stop-${files.nameOf(workItem)}`)
      .catch((cause: unknown) => log(`${workItem}: could not interrupt claude: ${String(cause)}`));
    return true;
  }

  /** Each running turn's transcript size, and since when it has been that size; a restarted worker starts over. */
  const progress = new Map<string, { size: number; since: number }>();
  /** Since when the transcript has had this size, or null when it has just changed (or is seen for the first time). */
  function observe(workItem: string, size: number): number | null {
    const seen = progress.get(workItem);
    if (seen?.size === size) return seen.since;
    progress.set(workItem, { size, since: Date.now() });
    return null;
  }

  /**
   * A running turn whose transcript has not grown for stuckAfterMs (`still`: the same size since then) is `stuck`, its
   * harness still running: a wait for a person, until the transcript grows again or the turn ends.
   */
  async function watchProgress(workItem: string, still: number | null): Promise<void> {
    if (still === null) {
      await endWait(workItem, (waiting) => waiting.reason === 'stuck');
      return;
    }
    const forMs = Date.now() - still;
    if (forMs < stuckAfterMs) return;
    const stuck = await files.update(workItem, (state) => {
      if (state.pending === null || state.waiting !== null) return null;
      const minutes = Math.round(forMs / 60_000);
      state.waiting = {
        reason: 'stuck',
        message: `no progress for ${minutes < 1 ? 'under a minute' : `${minutes} min`}: the transcript has not grown since ${new Date(still).toISOString()}`,
      };
      return state.waiting;
    });
    if (stuck === null) return;
    deps.mirror?.(workItem, `waiting for a human: ${stuck.message}`);
    deps.onWaiting?.(workItem, 'stuck', stuck.message);
    await signalWaiting(workItem, stuck);
  }

  return {
    keepBeating,
    restartWatch: (workItem) => progress.delete(workItem),
    stop() {
      for (const timer of beating.values()) clearInterval(timer);
      beating.clear();
    },
  };
}
