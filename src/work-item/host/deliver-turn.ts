import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { appendWorkItemEvent, logDeliveredOnce } from '../event-log';
import { textForPane } from '../pane-text';
import type { RegistryRecord } from '../schemas';
import { appendSessionEvent, startDeliveryIteration } from '../session-dir';
import { PaneDeadError, type Tmux } from '../tmux';
import { HostError, processEnv, type HostContext, type Located } from './context';
import { lastLines, showsWorking } from '../harness-screen';
import { budgetHold } from './budget-hold';
import { writeClaudeKey } from '../claude-auth';
import { workItemBudgetWait } from '../../budget/wait';
import { readRecord } from '../registry';
import { dialogShows, pendingBegan, type EndedTurn, type HostedTurns, type PaneState } from './pane-state';
import { afterStep, nextStep, RESUBMIT_EVERY_MS, type SubmitWatch } from './submit-watch';

/** How long a pane may take to become ready and idle (claude's start, a turn a human typed) before delivery gives up. */
const READY_WITHIN_MS = 3 * 60_000;
/**
 * How long a paste may go without a turn that began, or a TUI that shows it works on one (a slash command runs its
 * `!` lines before the turn-started report; each look that finds the TUI working starts this window again).
 */
const SUBMIT_WITHIN_MS = 30_000;
const POLL_MS = 250;
/**
 * A retried delivery whose turn never began: an earlier attempt died after its paste (Enter again submits the text
 * waiting in the input box) or before it (nothing there). No turn begun within two looks at a still screen: the text
 * is pasted again.
 */
const ADOPTED_PASTE_SUBMIT_WITHIN_MS = 2 * RESUBMIT_EVERY_MS + POLL_MS;

export type TurnOutcome =
  | {
      outcome: 'delivered';
      target: string;
      iterationDir: string;
      spawned: boolean;
      reply: string | null;
      /** The turn reached a budget (what was spent of what): the next one waits for a raise. */
      budget?: string;
      /** What the work item's turns have spent in all (USD), this one included, when the turn reported usage. */
      spentUsd?: number;
    }
  /** The turn is under way: the activity completes asynchronously when it ends. */
  | { outcome: 'awaiting' }
  /** A dialog waits for a human: nothing was pasted, the event stays queued. */
  | { outcome: 'held'; reason: string }
  /** A budget is reached: nothing was pasted, the event stays queued until a raise. */
  | { outcome: 'budget'; reason: string }
  | { outcome: 'tmux-lost'; reason: string };

export interface TurnInput {
  workItem: string;
  eventId: string;
  text: string;
  iteration: number;
  /** The delivering activity's task token: the turn-ended report completes it. */
  taskToken: Uint8Array;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cancelled delivery (its session is closing) stops waiting and touches the pane no more. */
function stopIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : new Error('the delivery was cancelled');
}

function replyOf(iterationDir: string): string | null {
  try {
    return (
      (JSON.parse(readFileSync(join(iterationDir, 'result.json'), 'utf8')) as { text?: string }).text ?? null
    );
  } catch {
    return null;
  }
}

/** A paste into a pane whose harness has exited is a lost pane, not a failure: its turn is dropped. */
async function intoLivePane(
  turns: HostedTurns,
  workItem: string,
  paste: () => Promise<void>,
): Promise<TurnOutcome | null> {
  try {
    await paste();
    return null;
  } catch (error) {
    if (!(error instanceof PaneDeadError)) throw error;
    await turns.dropTurn(workItem);
    return { outcome: 'tmux-lost', reason: error.message };
  }
}

/**
 * One event as one turn of a hooked harness (claude with the plugin): wait until the pane is ready and idle, paste,
 * confirm the submit by the turn-started report, and leave the rest to the turn-ended report. A retried attempt of
 * the same event adopts its running turn, or returns the turn that already ended.
 */
export async function deliverTurn(
  ctx: HostContext & { turns: HostedTurns },
  at: Located,
  record: RegistryRecord,
  tmux: Tmux,
  target: { name: string; spawned: boolean },
  input: TurnInput,
): Promise<TurnOutcome> {
  const { turns } = ctx;
  // a turn that ended before this attempt asked: what the work item spent is what its record counted by then
  const delivered = (ended: EndedTurn): TurnOutcome => {
    const spentUsd = readRecord(at.dirs, at.slug)?.spent?.usage.cost_usd;
    const budget =
      spentUsd === undefined
        ? null
        : workItemBudgetWait(ctx.config, at.dirs.stateRoot, at.workItem, spentUsd);
    return {
      outcome: 'delivered',
      target: target.name,
      iterationDir: ended.iteration_dir,
      spawned: false,
      reply: replyOf(ended.iteration_dir),
      ...(spentUsd === undefined ? {} : { spentUsd }),
      ...(budget ? { budget: budget.detail } : {}),
    };
  };
  /**
   * Waits for the pasted event's turn to begin (its turn-started report), pasting Enter again over a still screen;
   * null when no turn began within `within`, nor by a look's interval after the last Enter (submit-watch.ts), with
   * the screen last seen.
   */
  async function turnBegun(
    startedBefore: number,
    within: number,
  ): Promise<{ outcome: TurnOutcome | null; lastScreen: string | null }> {
    const screen = () => tmux.capture(target.name).catch(() => null);
    let watch: SubmitWatch = {
      submitBy: Date.now() + within,
      within,
      lastScreen: await screen(),
      enteredAt: null,
    };
    let lookAt = Date.now() + RESUBMIT_EVERY_MS;
    for (;;) {
      const now = await turns.paneState(at.workItem);
      if ((now?.turns_started ?? 0) > startedBefore) break;
      // its turn-started report lost, or ignored as old news: a turn that ends or ended began too
      if (now?.ending?.event_id === input.eventId || now?.last_ended?.event_id === input.eventId) break;
      if (Date.now() >= lookAt) {
        const current = await screen();
        const look = {
          now: Date.now(),
          screen: current,
          working: current !== null && showsWorking(record.harness, current),
          dialog: dialogShows(now),
        };
        const step = nextStep(watch, look);
        if (step === 'give-up') return { outcome: null, lastScreen: current ?? watch.lastScreen };
        if (step === 'enter') {
          ctx.log?.(`${at.workItem}: no turn began for ${input.eventId} over a still screen: Enter again`);
          const gone = await intoLivePane(turns, at.workItem, () => tmux.submit(target.name, buffer));
          if (gone) return { outcome: gone, lastScreen: current };
        }
        watch = afterStep(watch, look, step);
        lookAt = Date.now() + RESUBMIT_EVERY_MS;
      }
      ctx.heartbeat?.();
      await sleep(POLL_MS);
      stopIfCancelled(ctx.signal);
    }
    appendSessionEvent(
      record.session_dir,
      basename(record.session_dir),
      input.iteration * 2 - 1,
      'iteration_started',
      input.iteration,
    );
    logDeliveredOnce(at.dirs, at.slug, at.workItem, input);
    return { outcome: { outcome: 'awaiting' }, lastScreen: watch.lastScreen };
  }

  /** The pasted event's turn begins, or the paste was not submitted: the event stays queued. */
  async function confirmSubmitted(startedBefore: number): Promise<TurnOutcome> {
    const { outcome, lastScreen } = await turnBegun(startedBefore, SUBMIT_WITHIN_MS);
    if (outcome) return outcome;
    await turns.dropTurn(at.workItem);
    const last = lastLines(lastScreen ?? '');
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'event.failed', {
      event_id: input.eventId,
      iteration: input.iteration,
      error: 'pasted, but no turn began: not submitted',
      last_lines: last,
    });
    throw new HostError(
      `${at.workItem}: the event was pasted into ${target.name} but no turn began within ${SUBMIT_WITHIN_MS / 1000}s; it stays queued; the pane's last lines:\n  ${last.join('\n  ')}`,
      'not-submitted',
    );
  }

  /** Pastes the event and sees its turn begin; `startedBefore`: the turns begun in the pane before the paste. */
  async function pasteAndConfirm(text: string, startedBefore: number): Promise<TurnOutcome> {
    dieAt(ctx, 'before-paste', input.eventId);
    const lost = await intoLivePane(turns, at.workItem, async () => {
      await tmux.pasteText(target.name, text, buffer);
      dieAt(ctx, 'before-submit', input.eventId);
      await tmux.submit(target.name, buffer);
    });
    return lost ?? confirmSubmitted(startedBefore);
  }

  const buffer = `the-loop-${at.slug}`;
  const known = await turns.paneState(at.workItem);
  if (known?.last_ended?.event_id === input.eventId) return delivered(known.last_ended);
  if (known?.pending?.event_id === input.eventId) {
    const ended = await turns.awaitTurn(at.workItem, known.pending, input.taskToken);
    if (ended) return delivered(ended);
    if (pendingBegan(known)) return { outcome: 'awaiting' };
    // an attempt that died before its turn began: after its paste (Enter submits the text in the input box), or
    // before it (nothing there: paste it again)
    const { outcome } = await turnBegun(known.turns_started, ADOPTED_PASTE_SUBMIT_WITHIN_MS);
    if (outcome) return outcome;
    const now = await turns.paneState(at.workItem);
    ctx.log?.(
      `${at.workItem}: ${input.eventId}'s turn did not begin after the previous attempt: pasting it again`,
    );
    return pasteAndConfirm(textForPane(input.text), now?.turns_started ?? known.turns_started);
  }
  // a new turn: not once a budget is reached (checked after the retry's cases above, which run no new turn)
  const budget = budgetHold(ctx, at, record);
  if (budget) return budget;
  // env.file's key as it is now: one fixed there since the pane began (a refused credential blocked it) is used
  if (record.harness === 'claude') await writeClaudeKey(ctx.config, at.dirs, processEnv(ctx));

  const deadline = Date.now() + READY_WITHIN_MS;
  let state: PaneState | null;
  for (;;) {
    state = await turns.paneState(at.workItem);
    if (dialogShows(state)) return { outcome: 'held', reason: state?.waiting?.message ?? '' };
    if (state?.ready && !state.turn_running && !state.pending) break;
    const pane = await tmux.pane(target.name);
    if (!pane || pane.dead)
      return { outcome: 'tmux-lost', reason: `the harness in ${target.name} exited before it became ready` };
    if (Date.now() > deadline)
      throw new HostError(
        `${at.workItem}: the pane ${target.name} did not become ready and idle within ${READY_WITHIN_MS / 1000}s`,
        'failed',
      );
    ctx.heartbeat?.();
    await sleep(POLL_MS);
    stopIfCancelled(ctx.signal);
  }

  const text = textForPane(input.text);
  const iterationDir = startDeliveryIteration(record.session_dir, input.iteration, text);
  const pending = {
    work_item: at.workItem,
    event_id: input.eventId,
    iteration: input.iteration,
    iteration_dir: iterationDir,
    session_dir: record.session_dir,
    target: target.name,
    socket: tmux.socket,
  };
  // awaited before the paste: a quick turn may end before the paste call returns
  const ended = await turns.awaitTurn(at.workItem, pending, input.taskToken);
  if (ended) return delivered(ended);
  stopIfCancelled(ctx.signal);
  return pasteAndConfirm(text, state.turns_started);
}

/** Tests only: the worker dies at this point of this event's delivery (faultPoint `deliver:<point>:<event id>`). */
function dieAt(ctx: HostContext, point: 'before-paste' | 'before-submit', eventId: string): void {
  if (ctx.faultPoint === `deliver:${point}:${eventId}`) process.kill(process.pid, 'SIGKILL');
}
