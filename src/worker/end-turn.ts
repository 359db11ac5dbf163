import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { writeJsonAtomic } from '../session/json-file';
import { paneStateSchema, type PaneState, type PendingTurn } from '../work-item/host/pane-state';
import { finishDeliveryIteration, finishedTurnUsage } from '../work-item/session-dir';
import type { PriceTable } from '../pricing/prices';
import { settledTurnUsage, type HostedTurnUsage } from '../work-item/turn-usage';
import { turnLine } from './turn-line';
import type { PaneFiles } from './pane-files';

/** Where a delivered turn's activity task token waits for the turn's end, which completes the activity with it. */
export const taskTokenFile = (iterationDir: string) => join(iterationDir, 'task-token');

/**
 * A turn ended with what it spent: the work item's record adds it up. Resolves to what the work item has spent in
 * all and the budget it reached, if any (what was spent of what), which the turn's completion carries; null when it
 * could not be recorded. Never rejects.
 */
export type TurnUsageRecorder = (
  workItem: string,
  sessionDir: string,
  iteration: number,
  usage: HostedTurnUsage,
) => Promise<{ spentUsd: number; budget: string | null } | null>;

/** How a pending turn ended. */
export type TurnEnd =
  | { reply: string | null; transcript?: string | null }
  /** `type`: a failure no retry mends (ApplicationFailure.nonRetryable), such as a refused credential. */
  | { error: string; type?: string }
  | { interrupted: string };

export interface TurnEnder {
  /** The pending turn's activity task token, or null when its delivery has not awaited it (or it ended). */
  token(pending: PendingTurn): Promise<Uint8Array | null>;
  endTurn(state: PaneState, ended: TurnEnd): Promise<void>;
}

export function turnEnder(deps: {
  client: Client;
  files: PaneFiles;
  prices: PriceTable;
  /** How long a turn that ended may still be writing its usage to its transcript. */
  transcriptSettleMs: number;
  onTurnUsage?: TurnUsageRecorder;
  /** A line for the work item's chat thread (best effort, never awaited). */
  mirror?: (workItem: string, text: string) => void;
  log(line: string): void;
}): TurnEnder {
  const { client, files, prices, transcriptSettleMs, log } = deps;
  async function token(pending: PendingTurn): Promise<Uint8Array | null> {
    try {
      return Buffer.from((await readFile(taskTokenFile(pending.iteration_dir), 'utf8')).trim(), 'base64');
    } catch {
      return null;
    }
  }

  /**
   * Ends the pending turn: result.json, then the activity's completion (or failure). A turn a person interrupted
   * did not succeed, but it was delivered: the session goes on with its next event. The turn stays pending in the
   * pane's state until its activity is completed: a worker killed on the way leaves it to the next one, which ends
   * it from its `ending` (the turn-ended report it kept), without writing a recorded result.json again.
   */
  async function endTurn(state: PaneState, ended: TurnEnd): Promise<void> {
    const pending = state.pending;
    if (!pending) return;
    // the turn-ended report, once kept, is how the turn ended: whatever else ends it later (its pane died meanwhile)
    const ending = state.ending?.event_id === pending.event_id ? state.ending : null;
    const outcome = ending ? { reply: ending.reply, transcript: ending.transcript } : ended;
    const taskToken = await token(pending);
    const failed = 'error' in outcome;
    const interrupted = 'interrupted' in outcome;
    const reply = 'reply' in outcome ? outcome.reply : null;
    let usage: HostedTurnUsage | null;
    if (ending?.recorded) {
      const recorded = finishedTurnUsage(pending.session_dir, pending.iteration);
      usage = recorded && { usage: recorded.usage, unpriced: recorded.unpricedModels, complete: true };
    } else {
      // What the turn spent, whatever ended it. A turn that ended by itself may still be writing its last messages;
      // one cut off (Esc, a dead pane) has written what it will — if it began at all: the transcript a turn that
      // never began would read is its predecessor's, already counted.
      const began = state.transcript?.event_id === pending.event_id ? state.transcript.path : null;
      const transcript = ('transcript' in outcome ? outcome.transcript : null) ?? began;
      usage = transcript
        ? await settledTurnUsage(transcript, prices, 'reply' in outcome ? transcriptSettleMs : 0)
        : null;
      finishDeliveryIteration(pending.session_dir, pending.iteration, {
        success: !failed && !interrupted,
        text: reply ?? '',
        error: failed
          ? outcome.error
          : interrupted
            ? `interrupted in the terminal: ${outcome.interrupted}`
            : null,
        harnessSessionId: state.harness_session_id,
        usage,
      });
      if (ending) {
        ending.recorded = true;
        writeJsonAtomic(files.fileOf(pending.work_item), paneStateSchema, state);
      }
    }
    const spent =
      usage && deps.onTurnUsage
        ? await deps.onTurnUsage(pending.work_item, pending.session_dir, pending.iteration, usage)
        : null;
    deps.mirror?.(pending.work_item, turnLine(pending.iteration, outcome, usage));
    if (taskToken) {
      try {
        if (failed)
          await client.activity.fail(
            taskToken,
            outcome.type
              ? ApplicationFailure.nonRetryable(outcome.error, outcome.type)
              : new Error(outcome.error),
          );
        else
          await client.activity.complete(taskToken, {
            outcome: 'delivered',
            target: pending.target,
            iterationDir: pending.iteration_dir,
            spawned: false,
            reply,
            ...(spent ? { spentUsd: spent.spentUsd } : {}),
            ...(spent?.budget ? { budget: spent.budget } : {}),
          });
      } catch (error) {
        // a timed-out attempt: its retry finds the ended turn in last_ended (and one completed before a kill, here)
        log(`turn ${pending.iteration}: could not complete its activity: ${(error as Error).message}`);
      }
    }
    await rm(taskTokenFile(pending.iteration_dir), { force: true });
    state.pending = null;
    state.ending = null;
    if (!failed) state.last_ended = { event_id: pending.event_id, iteration_dir: pending.iteration_dir };
  }

  return { token, endTurn };
}
