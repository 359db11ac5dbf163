import { basename } from 'node:path';
import { appendWorkItemEvent } from '../event-log';
import { tmuxSessionName } from '../ref';
import { appendSessionEvent, writeDeliveryIteration } from '../session-dir';
import { HostError, hostTmux, locate, requireRecord, type HostContext } from './context';
import { budgetHold } from './budget-hold';
import { spawnSession } from './spawn';
import { deliverTurn, type TurnOutcome } from './deliver-turn';
import { textForPane } from '../pane-text';

export interface DeliverInput {
  workItem: string;
  eventId: string;
  text: string;
  iteration: number;
  /** The delivering activity's task token: with hooks, the turn completes it asynchronously. */
  taskToken?: Uint8Array;
}

export type DeliverResult = TurnOutcome;

/**
 * Delivers one event into the pane (spawning the session on its first event) and records the iteration. A claude
 * pane with hooks takes it as a turn (deliver-turn.ts); a harness without hooks gets the text pasted.
 */
export async function deliverEvent(ctx: HostContext, input: DeliverInput): Promise<DeliverResult> {
  const at = locate(ctx, input.workItem);
  const record = requireRecord(at);
  const tmux = hostTmux(ctx);
  const name = tmuxSessionName(at.ref);
  let spawned = false;
  if (record.tmux === null) {
    await spawnSession(ctx, at.workItem);
    spawned = true;
  } else {
    const pane = await tmux.pane(name);
    if (!pane || pane.dead) {
      const reason = !(await tmux.serverRunning())
        ? `the tmux server on socket '${tmux.socket}' is not running`
        : !pane
          ? `tmux session ${name} is gone`
          : `the harness in ${name} has exited`;
      appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'tmux.lost', {
        reason,
        event_id: input.eventId,
        fix: '`the-loop sessions start` brings the session back',
      });
      return { outcome: 'tmux-lost', reason };
    }
  }
  const { turns } = ctx;
  if (turns && input.taskToken && record.harness === 'claude')
    return deliverTurn(
      { ...ctx, turns },
      at,
      record,
      tmux,
      { name, spawned },
      {
        ...input,
        taskToken: input.taskToken,
      },
    );
  const budget = budgetHold(ctx, at, record);
  if (budget) return budget;
  const sessionId = basename(record.session_dir);
  appendSessionEvent(
    record.session_dir,
    sessionId,
    input.iteration * 2 - 1,
    'iteration_started',
    input.iteration,
  );
  let error: string | null = null;
  try {
    await tmux.paste(name, textForPane(input.text), `the-loop-${at.slug}`);
  } catch (err) {
    error = (err as Error).message;
  }
  const iterationDir = writeDeliveryIteration(record.session_dir, input.iteration, input.text, {
    success: error === null,
    error,
  });
  appendSessionEvent(
    record.session_dir,
    sessionId,
    input.iteration * 2,
    'iteration_finished',
    input.iteration,
    {
      success: error === null,
    },
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, error === null ? 'event.delivered' : 'event.failed', {
    event_id: input.eventId,
    iteration: input.iteration,
    ...(error ? { error } : {}),
  });
  if (error !== null) throw new HostError(`${at.workItem}: delivery failed: ${error}`, 'failed');
  return { outcome: 'delivered', target: name, iterationDir, spawned, reply: null };
}
