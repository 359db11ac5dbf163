import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startHookChannel, type HookChannel, type HookReply } from '../hook-channel/server';
import type { HookReport } from '../hook-channel/report';
import { silentLog, type MessageLog } from '../log/message-log';
import { writeJsonAtomic } from '../session/json-file';
import {
  freshPaneState,
  paneStateSchema,
  pendingBegan,
  reportIsStale,
  type HostedTurns,
  type PaneState,
  type PendingTurn,
  type PromptAnswer,
} from '../work-item/host/pane-state';
import { finishDeliveryIteration, finishedTurnUsage } from '../work-item/session-dir';
import { showsPrompt } from '../work-item/harness-screen';
import { Tmux } from '../work-item/tmux';
import { interruptionAfter, sizeOrZero } from '../work-item/transcript-interruption';
import { authFailureAfter, CLAUDE_DEBUG_LOG_ENV } from '../work-item/claude-debug-log';
import { authFailureMessage } from '../harness/claude-output';
import { paneWaitingSignal, type PaneWaiting, type PaneWaitReason } from '../workflows/work-item/messages';
import { workItemWorkflowId } from '../workflows/work-item/ids';
import { remoteAnswer, type PermissionPolicy } from '../config/permission-policy';
import { questionOf } from '../session/reply-question';
import { heldPrompts, NO_DECISION } from './held-prompts';
import { turnLine } from './turn-line';
import { DEFAULT_PRICES, type PriceTable } from '../pricing/prices';
import { settledTurnUsage, TRANSCRIPT_SETTLE_MS, type HostedTurnUsage } from '../work-item/turn-usage';

const SOCKET_PATH_LIMIT = 103;
/** Often enough for a one-minute heartbeat timeout, rarely enough to cost nothing. */
const HEARTBEAT_EVERY_MS = 5_000;
const LAST_LINES = 20;
/** The failure type of a delivered turn whose credential the model API refused: the delivery is not retried. */
export const CREDENTIAL_REFUSED = 'HarnessCredentialRefused';

/** <state>/hooks when its socket path fits a Unix socket; otherwise a per-state-dir directory under tmp. */
export function hookChannelDir(stateDir: string): string {
  const preferred = join(stateDir, 'hooks');
  if (Buffer.byteLength(join(preferred, 'hooks.sock')) <= SOCKET_PATH_LIMIT) return preferred;
  const tag = createHash('sha256').update(stateDir).digest('hex').slice(0, 12);
  return join(tmpdir(), `the-loop-hooks-${process.getuid?.() ?? 'u'}-${tag}`);
}

export const taskTokenFile = (iterationDir: string) => join(iterationDir, 'task-token');

/** A permission prompt, a turn that stopped moving, or a question: asked in the reply, or another dialog. */
const waitKind = (reason: NonNullable<PaneState['waiting']>['reason']): PaneWaitReason =>
  reason === 'permission' || reason === 'stuck' ? reason : 'question';

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
  /**
   * A turn ended with what it spent: the work item's record adds it up. Resolves to what the work item has spent in
   * all and the budget it reached, if any (what was spent of what), which the turn's completion carries; null when
   * it could not be recorded. Never rejects.
   */
  onTurnUsage?: (
    workItem: string,
    sessionDir: string,
    iteration: number,
    usage: HostedTurnUsage,
  ) => Promise<{ spentUsd: number; budget: string | null } | null>;
}): Promise<RunningHostedTurns> {
  const logger = options.logger ?? silentLog;
  const stuckAfterMs = options.stuckAfterMs ?? 20 * 60_000;
  const prices = options.prices ?? DEFAULT_PRICES;
  const transcriptSettleMs = options.transcriptSettleMs ?? TRANSCRIPT_SETTLE_MS;
  const log = (line: string) => logger.warn(line);
  const { client } = options;
  const panesDir = join(options.dir, 'panes');
  await mkdir(panesDir, { recursive: true, mode: 0o700 });
  const paneName = (workItem: string) => createHash('sha256').update(workItem).digest('hex').slice(0, 24);
  const fileOf = (workItem: string) => join(panesDir, `${paneName(workItem)}.json`);
  /** The pane's claude writes its errors here (`--debug-file`): a refused credential shows in it. */
  const debugLogOf = (workItem: string) => join(panesDir, `${paneName(workItem)}.claude-debug.log`);

  async function read(file: string): Promise<PaneState | null> {
    try {
      return paneStateSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    } catch {
      return null;
    }
  }

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

  /** One change at a time per pane: hooks may report concurrently. */
  const chains = new Map<string, Promise<unknown>>();
  function update<T>(workItem: string, fn: (state: PaneState) => Promise<T> | T): Promise<T> {
    const file = fileOf(workItem);
    const run = (chains.get(file) ?? Promise.resolve()).then(async () => {
      const state = (await read(file)) ?? freshPaneState();
      state.work_item = workItem;
      const result = await fn(state);
      writeJsonAtomic(file, paneStateSchema, state);
      return result;
    });
    chains.set(
      file,
      run.catch(() => undefined),
    );
    return run;
  }

  async function signalWaiting(workItem: string, waiting: PaneState['waiting']): Promise<void> {
    const signal: PaneWaiting = waiting
      ? {
          message: waiting.message,
          reason: waitKind(waiting.reason),
          ...(waiting.reason === 'question' ? { holdsDelivery: false } : {}),
        }
      : { message: null };
    try {
      await client.workflow.getHandle(workItemWorkflowId(workItem)).signal(paneWaitingSignal, signal);
    } catch (error) {
      log(`${workItem}: could not tell the workflow about the wait: ${(error as Error).message}`);
    }
  }

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
  async function endTurn(
    state: PaneState,
    ended:
      | { reply: string | null; transcript?: string | null }
      /** `type`: a failure no retry mends (ApplicationFailure.nonRetryable), such as a refused credential. */
      | { error: string; type?: string }
      | { interrupted: string },
  ): Promise<void> {
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
        writeJsonAtomic(fileOf(pending.work_item), paneStateSchema, state);
      }
    }
    const spent =
      usage && options.onTurnUsage
        ? await options.onTurnUsage(pending.work_item, pending.session_dir, pending.iteration, usage)
        : null;
    options.mirror?.(pending.work_item, turnLine(pending.iteration, outcome, usage));
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

  /** Heartbeats the pending turn of one pane while the pane lives; a dead pane fails the turn with its last lines. */
  const beating = new Map<string, NodeJS.Timeout>();
  function keepBeating(workItem: string): void {
    const file = fileOf(workItem);
    if (beating.has(file)) return;
    const timer = setInterval(() => {
      void beat(workItem, file).catch((error: unknown) => log(`${workItem}: ${(error as Error).message}`));
    }, HEARTBEAT_EVERY_MS);
    beating.set(file, timer);
  }
  async function beat(workItem: string, file: string): Promise<void> {
    const state = await read(file);
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
      releaseAsk(workItem, NO_DECISION);
      const wasWaiting = await update(workItem, async (current) => {
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
    await update(workItem, (current) =>
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
    const failure = await authFailureAfter(debugLogOf(workItem), seen.debug_offset);
    if (!failure) return false;
    const error = authFailureMessage('claude', failure, 'ANTHROPIC_API_KEY');
    log(`${workItem}: turn ${pending.iteration}: ${error}`);
    await update(workItem, async (current) => {
      if (current.pending?.event_id !== pending.event_id) return;
      current.turn_running = false;
      await endTurn(current, { error, type: CREDENTIAL_REFUSED });
    });
    // claude would go on retrying, and a retry that got through after a fix would run the turn a second time
    await new Tmux(pending.socket, process.env)
      .interrupt(pending.target, `the-loop-stop-${paneName(workItem)}`)
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

  /** The pane's wait ends, when `which` it is: the workflow is told. False when no such wait was there. */
  async function endWait(
    workItem: string,
    which: (waiting: NonNullable<PaneState['waiting']>) => boolean = () => true,
  ): Promise<boolean> {
    const ended = await update(workItem, (state) => {
      if (state.waiting === null || !which(state.waiting)) return false;
      state.waiting = null;
      return true;
    });
    if (ended) await signalWaiting(workItem, null);
    return ended;
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
    const stuck = await update(workItem, (state) => {
      if (state.pending === null || state.waiting !== null) return null;
      const minutes = Math.round(forMs / 60_000);
      state.waiting = {
        reason: 'stuck',
        message: `no progress for ${minutes < 1 ? 'under a minute' : `${minutes} min`}: the transcript has not grown since ${new Date(still).toISOString()}`,
      };
      return state.waiting;
    });
    if (stuck === null) return;
    options.mirror?.(workItem, `waiting for a human: ${stuck.message}`);
    options.onWaiting?.(workItem, 'stuck', stuck.message);
    await signalWaiting(workItem, stuck);
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
    if (report.event === 'turn-started' || report.event === 'turn-ended') progress.delete(workItem);
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
  for (const name of await readdir(panesDir)) {
    const state = await read(join(panesDir, name));
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
      for (const timer of beating.values()) clearInterval(timer);
      beating.clear();
      await channel.close();
    },
  };
}
