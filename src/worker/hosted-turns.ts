import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startHookChannel, type HookChannel, type HookReply } from '../hook-channel/server';
import type { HookReport } from '../hook-channel/report';
import { silentLog, type MessageLog } from '../log/message-log';
import {
  freshPaneState,
  pendingBegan,
  reportIsStale,
  type HostedTurns,
  type PendingTurn,
  type PromptAnswer,
} from '../work-item/host/pane-state';
import { showsPrompt } from '../work-item/harness-screen';
import { Tmux } from '../work-item/tmux';
import { CLAUDE_DEBUG_LOG_ENV } from '../work-item/claude-debug-log';
import type { PaneWaitReason } from '../workflows/work-item/messages';
import { remoteAnswer, type PermissionPolicy } from '../config/permission-policy';
import { questionOf } from '../session/reply-question';
import { DEFAULT_PRICES, type PriceTable } from '../pricing/prices';
import { TRANSCRIPT_SETTLE_MS } from '../work-item/turn-usage';
import { sizeOrZero } from '../work-item/transcript-interruption';
import { heldPrompts, NO_DECISION } from './held-prompts';
import { openPaneFiles } from './pane-files';
import { paneWaits, waitKind } from './pane-waits';
import { taskTokenFile, turnEnder, type TurnUsageRecorder } from './end-turn';
import { turnHeartbeat } from './turn-heartbeat';

/** What a permission prompt asks, in one line. */
const promptText = (tool: string, summary: string) =>
  `permission to use ${tool}${summary ? `: ${summary}` : ''}`;

export interface RunningHostedTurns extends HostedTurns {
  channel: HookChannel;
  close(): Promise<void>;
}

/**
 * The worker's half of hook-driven turns: it runs the hook channel, keeps each pane's state from its reports,
 * completes a delivered turn's activity from the turn-ended report (async completion through `client`), heartbeats
 * it while the pane lives, and tells the workflow when a permission prompt waits for a human.
 */
export async function startHostedTurns(options: {
  dir: string;
  client: Client;
  logger?: MessageLog;
  /** A line for the work item's chat thread (best effort, never awaited): turn summaries and waits. */
  mirror?: (workItem: string, text: string) => void;
  /** How long a running turn's transcript may stay the same size before the turn shows as stuck (default 20 min). */
  stuckAfterMs?: number;
  /** A prompt answered here, not through the workflow (best effort, never awaited): in the terminal, by policy, by timeout. */
  onAnswered?: (workItem: string, answer: PromptAnswer) => void;
  /** permissions.remote: what a prompt gets before a person is asked. */
  policy?: PermissionPolicy;
  /** permissions.timeout and permissions.onTimeout. */
  timeout?: { ms: number; decision: 'allow' | 'deny' };
  /** A session began to wait for a human (best effort, never awaited): the work item's comment. */
  onWaiting?: (workItem: string, kind: PaneWaitReason, message: string) => void;
  /** Prices of the models hosted turns use (the configuration's `pricing:` over the default table). */
  prices?: PriceTable;
  /** A delivered turn began (its turn-started report): the work item's log says it was delivered (never awaited). */
  onTurnBegan?: (pending: PendingTurn) => void;
  /** How long a turn that ended may still be writing its usage to its transcript (default 60 s). */
  transcriptSettleMs?: number;
  /** A turn ended with what it spent: the work item's record adds it up (see TurnUsageRecorder). */
  onTurnUsage?: TurnUsageRecorder;
}): Promise<RunningHostedTurns> {
  const logger = options.logger ?? silentLog;
  const log = (line: string) => logger.warn(line);
  const { client } = options;
  const files = await openPaneFiles(options.dir);
  const { read, update, fileOf, debugLogOf } = files;
  const waits = paneWaits({ client, files, log });
  const { signalWaiting, endWait } = waits;
  const ender = turnEnder({
    client,
    files,
    prices: options.prices ?? DEFAULT_PRICES,
    transcriptSettleMs: options.transcriptSettleMs ?? TRANSCRIPT_SETTLE_MS,
    ...(options.onTurnUsage ? { onTurnUsage: options.onTurnUsage } : {}),
    ...(options.mirror ? { mirror: options.mirror } : {}),
    log,
  });
  const { token, endTurn } = ender;

  const prompts = heldPrompts({
    async promptShown(workItem) {
      const pending = (await read(fileOf(workItem)))?.pending;
      if (!pending) return null;
      const screen = await new Tmux(pending.socket, process.env).capture(pending.target).catch(() => null);
      return screen === null ? null : showsPrompt('claude', screen);
    },
    answeredInTerminal: (workItem) => answeredHere(workItem, null, 'terminal', 'terminal'),
    timedOut: (workItem, decision) => answeredHere(workItem, decision, 'the-loop', 'timeout'),
    ...(options.timeout ? { timeout: options.timeout } : {}),
    log,
  });
  /**
   * Panes whose permission prompt was answered from elsewhere (or by the timeout): claude's Notification for that
   * prompt may come after the answer (its hook is a process of its own), and must not open the answered prompt's wait
   * again. Any other report of the pane (the next prompt's PermissionRequest, a turn that starts or ends) clears it.
   */
  const answeredPrompts = new Set<string>();

  /** A held prompt answered without the workflow: the wait ends, and the answer is recorded. */
  async function answeredHere(
    workItem: string,
    decision: PromptAnswer['decision'],
    by: string,
    via: PromptAnswer['via'],
  ): Promise<void> {
    const waiting = (await read(fileOf(workItem)))?.waiting;
    if (via === 'timeout') answeredPrompts.add(workItem);
    await endWait(workItem, (w) => w.reason === 'permission');
    const asked = waiting?.reason === 'permission' ? waiting.message : null;
    options.onAnswered?.(workItem, { decision, by, via, asked });
  }
  const releaseAsk = (workItem: string, reply: HookReply) => prompts.release(workItem, reply);
  const heartbeat = turnHeartbeat({
    client,
    files,
    turns: ender,
    waits,
    stuckAfterMs: options.stuckAfterMs ?? 20 * 60_000,
    releaseAsk: (workItem) => releaseAsk(workItem, NO_DECISION),
    ...(options.mirror ? { mirror: options.mirror } : {}),
    ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
    log,
  });
  const { keepBeating } = heartbeat;

  /** Ends the pending turn whose turn-ended report a predecessor kept, but died before it completed the turn. */
  async function finishEnding(workItem: string): Promise<void> {
    try {
      await update(workItem, async (state) => {
        const ending = state.ending;
        if (!ending || state.pending?.event_id !== ending.event_id) return;
        log(`${workItem}: turn ${state.pending.iteration} ended under the previous worker: ending it here`);
        state.turn_running = false;
        await endTurn(state, { reply: ending.reply });
      });
    } catch (error) {
      log(`${workItem}: could not end the turn the previous worker was ending: ${(error as Error).message}`);
    }
  }

  /**
   * A pending turn that never began, under a predecessor that died delivering it (before its paste, or before claude
   * took it): its attempt is failed now, for a retry that submits or pastes it again (deliver-turn.ts). Heartbeated,
   * it would wait for a turn that never comes.
   */
  async function deliverAgain(workItem: string): Promise<void> {
    const pending = (await read(fileOf(workItem)))?.pending;
    const taskToken = pending ? await token(pending) : null;
    if (!pending || !taskToken) return;
    log(
      `${workItem}: turn ${pending.iteration} had not begun when the previous worker died: delivering it again`,
    );
    await client.activity
      .fail(
        taskToken,
        ApplicationFailure.retryable(
          `the worker delivering ${pending.event_id} died before its turn began`,
          'DeliveryInterrupted',
        ),
      )
      .catch((error: unknown) =>
        log(`${workItem}: could not retry its delivery: ${(error as Error).message}`),
      );
  }

  async function onReport(workItem: string, report: HookReport): Promise<HookReply | undefined> {
    // a spooled report that later ones overtook, or one applied in full already (see PaneState's last_report)
    const kept = report.event !== 'permission';
    if (kept && (await update(workItem, (state) => reportIsStale(state, report)))) {
      log(`${workItem}: ${report.event} of ${report.at} is older than the pane's last report: ignored`);
      return undefined;
    }
    const reply = await applyReport(workItem, report);
    // kept once applied in full: a worker killed before this applies the report again when its hook asks again
    if (kept)
      await update(workItem, (state) => {
        if (!state.last_report || !reportIsStale(state, report))
          state.last_report = { at: report.at, event: report.event };
      });
    return reply;
  }

  async function applyReport(workItem: string, report: HookReport): Promise<HookReply | undefined> {
    // a turn that goes on, ends or starts anew (or a newer prompt): the held prompt was answered in the terminal
    if (report.event !== 'waiting') {
      releaseAsk(workItem, NO_DECISION);
      answeredPrompts.delete(workItem);
    }
    if (report.event === 'permission' && options.policy) {
      const { answer, pattern } = remoteAnswer(options.policy, report.tool_name, report.summary);
      if (answer !== 'ask') {
        // decided by the configured policy: nobody is asked, and nothing waits
        const asked = promptText(report.tool_name, report.summary);
        options.onAnswered?.(workItem, {
          decision: answer,
          by: `permissions.remote ${pattern}`,
          via: 'policy',
          asked,
        });
        const message = answer === 'deny' ? `denied by the-loop's permissions.remote (${pattern})` : null;
        return { status: 200, body: { decision: answer, message, always: false } };
      }
    }
    // a turn that begins or ends starts the watch for progress over
    if (report.event === 'turn-started' || report.event === 'turn-ended') heartbeat.restartWatch(workItem);
    // the turn's end is kept before anything slow (its usage may take a while to settle): a worker killed meanwhile
    // leaves it to the next one, though this report's hook has had its answer, or has given up waiting for it
    if (report.event === 'turn-ended')
      await update(workItem, (state) => {
        // the same report again (its hook asks the next worker): the end kept first stands
        if (!state.pending || state.ending?.event_id === state.pending.event_id) return;
        state.ending = {
          event_id: state.pending.event_id,
          reply: report.last_assistant_message,
          transcript: report.transcript_path,
          recorded: false,
        };
      });
    const waitingBefore = (await read(fileOf(workItem)))?.waiting ?? null;
    const waiting = await update(workItem, async (state) => {
      if (report.harness_session_id) state.harness_session_id = report.harness_session_id;
      switch (report.event) {
        case 'ready':
          state.ready = true;
          state.waiting = null;
          break;
        case 'turn-started':
          state.transcript = report.transcript_path
            ? {
                path: report.transcript_path,
                offset: await sizeOrZero(report.transcript_path),
                event_id: state.pending?.event_id ?? null,
              }
            : null;
          state.debug_offset = await sizeOrZero(debugLogOf(workItem));
          if (state.pending) options.onTurnBegan?.(state.pending);
          state.ready = true;
          state.turn_running = true;
          state.turns_started += 1;
          state.last_prompt = report.prompt;
          state.waiting = null;
          break;
        case 'turn-ended': {
          state.turn_running = false;
          await endTurn(state, {
            reply: report.last_assistant_message,
            transcript: report.transcript_path,
          });
          // a reply that ends on a question waits for its answer, the next event
          const asked = questionOf(report.last_assistant_message);
          state.waiting = asked === null ? null : { reason: 'question', message: asked };
          break;
        }
        case 'permission':
          state.waiting = {
            reason: 'permission',
            message: promptText(report.tool_name, report.summary),
          };
          break;
        case 'waiting':
          // an idle input box waits for nobody in particular (unless its reply asked): delivery may paste into it
          if (report.reason === 'idle') {
            if (state.waiting?.reason !== 'question') state.waiting = null;
          } else if (!(
            report.reason === 'permission' &&
            (state.waiting?.reason === 'permission' || answeredPrompts.has(workItem))
          )) {
            // claude's Notification for a prompt its PermissionRequest hook already reported says less ("Claude
            // needs your permission to use Bash"): the prompt keeps its own message, and so its one wait; and one
            // that comes after the prompt was answered opens no second wait
            state.waiting = { reason: report.reason, message: report.message };
          }
          break;
      }
      return state.waiting;
    });
    // a prompt is held for an answer from elsewhere, and said to wait once it is on the screen (held-prompts.ts)
    const ask = report.event === 'permission' ? prompts.hold(workItem) : null;
    await ask?.drawn;
    // a wait that begins, ends or changes its kind (the reason of none is undefined)
    if (waitingBefore?.reason !== waiting?.reason) {
      if (waiting) {
        options.mirror?.(workItem, `waiting for a human: ${waiting.message}`);
        options.onWaiting?.(workItem, waitKind(waiting.reason), waiting.message);
      }
      await signalWaiting(workItem, waiting);
    }
    return ask?.decided;
  }

  // A predecessor's panes: their hooks are admitted again, and their pending turns kept alive (or failed), or ended
  // when the predecessor died ending them.
  const predecessors: { workItem: string; pending: 'began' | 'not-begun' | null; ending: boolean }[] = [];
  for (const name of await readdir(files.dir)) {
    const state = await read(join(files.dir, name));
    const workItem = state?.work_item ?? state?.pending?.work_item;
    if (!state || !workItem) continue;
    const ending = state.ending != null && state.ending.event_id === state.pending?.event_id;
    const pending = state.pending ? (pendingBegan(state) ? 'began' : 'not-begun') : null;
    predecessors.push({ workItem, pending, ending });
  }
  const channel = await startHookChannel({
    dir: options.dir,
    log,
    onReport: (session, report) => onReport(session, report),
    readmit: predecessors.map((p) => p.workItem),
  });
  for (const { workItem, pending, ending } of predecessors) {
    if (pending === 'began') keepBeating(workItem);
    if (pending === 'not-begun') void deliverAgain(workItem);
    if (ending) void finishEnding(workItem);
  }

  return {
    channel,
    async openPane(workItem) {
      releaseAsk(workItem, NO_DECISION);
      const access = await channel.openSession(workItem, { workItem });
      await update(workItem, async (state) => {
        await endTurn(state, { error: 'the pane was respawned during the turn' });
        Object.assign(state, { ...freshPaneState(), last_ended: state.last_ended });
      });
      // a new pane's log starts empty: what an earlier pane logged was answered with it
      await writeFile(debugLogOf(workItem), '', { mode: 0o600 });
      return {
        env: { ...access.env, ...CLAUDE_DEBUG_LOG_ENV },
        args: ['--debug-file', debugLogOf(workItem)],
      };
    },
    async closePane(workItem) {
      releaseAsk(workItem, NO_DECISION);
      await channel.closeSession(workItem);
      await update(workItem, (state) => endTurn(state, { error: 'the session was closed during the turn' }));
    },
    paneState: (workItem) => read(fileOf(workItem)),
    async awaitTurn(workItem, pending, taskToken) {
      await writeFile(taskTokenFile(pending.iteration_dir), Buffer.from(taskToken).toString('base64'), {
        mode: 0o600,
      });
      const ended = await update(workItem, async (state) => {
        // A retried attempt looked before its turn ended and asks after: awaiting it again would wait forever.
        if (state.last_ended?.event_id === pending.event_id) {
          await rm(taskTokenFile(pending.iteration_dir), { force: true });
          return state.last_ended;
        }
        state.pending = pending;
        return null;
      });
      if (!ended) keepBeating(workItem);
      return ended;
    },
    async answerPermission(workItem, answer) {
      const outcome = await prompts.answer(workItem, { status: 200, body: answer });
      // the prompt is answered: nothing waits in the pane
      if (outcome === 'answered') {
        answeredPrompts.add(workItem);
        await endWait(workItem);
      }
      return outcome;
    },
    async dropTurn(workItem) {
      await update(workItem, async (state) => {
        if (state.pending) await rm(taskTokenFile(state.pending.iteration_dir), { force: true });
        state.pending = null;
      });
    },
    async close() {
      // the hooks of held prompts ask the next worker
      for (const workItem of prompts.held())
        releaseAsk(workItem, { status: 503, message: 'the worker is stopping: ask again' });
      heartbeat.stop();
      await channel.close();
    },
  };
}
