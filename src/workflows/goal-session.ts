import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { pickRoutine, type Routine } from '../session/routine-schedule';
import { addUsage, emptyUsage } from '../session/usage-math';
import type { SessionEvent, SessionEventType } from '../session/schemas/event';
import type {
  GoalSessionCarry,
  GoalSessionInput,
  GoalSessionResult,
  IterationOutcome,
  SessionStateFile,
  StopKind,
} from './goal-session-types';
import {
  pauseSignal,
  resumeSignal,
  statusQuery,
  stopSignal,
  userUpdateSignal,
} from './goal-session-messages';
import { createChildCoordinator } from './children';
import { clone } from './clone';
import {
  LoopCostUsd,
  LoopHarness,
  LoopIteration,
  LoopKind,
  LoopParentSession,
  LoopStatus,
} from './search-attributes';

const now = () => new Date().toISOString();

/**
 * How many of the newest history entries each projection carries. Every activity that carries one also writes it
 * before it completes, and an entry is added only when a turn completes: at most one is ever missing on disk.
 */
const FLUSHED_HISTORY_WINDOW = 4;

/**
 * Search attributes are for finding sessions, not a live feed, and each upsert is a history event and a visibility
 * write: through a run of fast turns the iteration and cost go out at most once a second. Status changes and the
 * final values always go out at once.
 */
const SEARCH_ATTRIBUTE_REFRESH_MS = 1000;

/**
 * How many history entries a continue-as-new carries into the next run (its input is one payload, 2 MB at most):
 * state.json keeps every entry, and `loopy status` merges the two.
 */
const CARRIED_HISTORY = 200;

/**
 * One goal session: iterations of a harness toward a goal until a stop condition fires. The workflow owns the
 * state; activities project it into the layout doc's session directory on the session's host.
 */
export async function goalSession(
  input: GoalSessionInput,
  carry?: GoalSessionCarry,
): Promise<GoalSessionResult> {
  const startedAt = carry?.state.started_at ?? now();
  const state: SessionStateFile = carry
    ? clone(carry.state)
    : {
        schema_version: 1,
        session_id: input.sessionId,
        status: 'starting',
        iteration: 0,
        dispatch: { active_iteration: null, paused: false, next_routine_id: null },
        history: [],
        stop: { kind: null, reason: null, requested_by: null, at: null },
        active_child_session_id: null,
        usage: { own: emptyUsage(), children: emptyUsage(), total: emptyUsage() },
        consecutive_failures: 0,
        started_at: startedAt,
        updated_at: startedAt,
      };
  let seq = carry?.seq ?? 0;
  let pending: SessionEvent[] = clone(carry?.events ?? []);
  const emit = (
    type: SessionEventType,
    extra: Partial<Pick<SessionEvent, 'iteration' | 'routine_id' | 'data'>> = {},
  ) => {
    seq += 1;
    pending.push({ v: 1, seq, ts: now(), session_id: input.sessionId, type, ...extra });
  };
  let acknowledge: { iteration: number; routineId: string }[] = clone(carry?.acknowledge ?? []);
  const drain = () => {
    state.updated_at = now();
    const flush = {
      sessionDir: input.sessionDir,
      state: clone({ ...state, history: state.history.slice(-FLUSHED_HISTORY_WINDOW) }),
      events: pending,
      acknowledge,
    };
    pending = [];
    acknowledge = [];
    return flush;
  };

  const session = proxyActivities<Activities>({
    taskQueue: input.hostQueue,
    startToCloseTimeout: '2 minutes',
    // These activities are short file writes: a worker that dies holding one is noticed as fast as a harness turn.
    heartbeatTimeout: input.heartbeatTimeoutMs,
    retry: { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] },
  });
  const iterations = proxyActivities<Activities>({
    taskQueue: input.hostQueue,
    startToCloseTimeout: input.iterationTimeoutMs + 60_000,
    heartbeatTimeout: input.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] },
  });

  let stopRequest: { reason: string; by: string } | null = null;
  let iterationScope: CancellationScope | null = null;
  // Child sessions (src/workflows/children.ts): dispatched after an iteration; pause/resume/stop reach them.
  const children = createChildCoordinator({
    input,
    state,
    emit,
    drain,
    publish: () => publish(),
    stopRequest: () => stopRequest,
    startedMs: Date.parse(startedAt),
    records: carry?.children,
  });
  setHandler(statusQuery, () => ({ ...state, updated_at: now() }));
  setHandler(pauseSignal, () => {
    if (state.dispatch.paused || stopRequest) return;
    state.dispatch.paused = true;
    emit('session_paused');
    children.forward('pause');
  });
  setHandler(resumeSignal, () => {
    if (!state.dispatch.paused) return;
    state.dispatch.paused = false;
    emit('session_resumed');
    children.forward('resume');
  });
  setHandler(stopSignal, ({ reason, by }) => {
    if (stopRequest) return;
    stopRequest = { reason: reason?.trim() || 'stopped by the user', by: by ?? 'user' };
    state.stop.requested_by = stopRequest.by;
    emit('stop_requested', { data: { reason: stopRequest.reason, by: stopRequest.by } });
    iterationScope?.cancel();
    children.forward('stop');
  });
  setHandler(userUpdateSignal, ({ bytes }) => emit('user_update', { data: { bytes } }));

  /**
   * A cancellation request from Temporal itself (the Web UI's Cancel, `temporal workflow cancel`) is a user's stop
   * by another door: noted as one, so that the session ends the same way — its turn salvaged, its final state
   * written — instead of failing every turn it would still try to start.
   */
  const noteTemporalCancellation = (): void => {
    if (stopRequest || !CancellationScope.current().consideredCancelled) return;
    stopRequest = { reason: 'cancelled through Temporal (a workflow cancellation request)', by: 'temporal' };
    state.stop.requested_by = 'temporal';
    emit('stop_requested', { data: { reason: stopRequest.reason, by: 'temporal' } });
    children.forward('stop');
  };
  /** Awaits a step that a cancellation may interrupt; the loop then stops through noteTemporalCancellation. */
  const unlessCancelled = async (step: () => Promise<unknown>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      if (!isCancellation(error) || !CancellationScope.current().consideredCancelled) throw error;
    }
  };

  let publishedAt = Number.NEGATIVE_INFINITY;
  let publishedStatus: string | null = null;
  const publish = () => {
    publishedAt = Date.now();
    publishedStatus = state.status;
    upsertSearchAttributes([
      { key: LoopKind, value: 'goal' },
      { key: LoopStatus, value: state.status },
      { key: LoopHarness, value: input.harness },
      { key: LoopIteration, value: state.iteration },
      { key: LoopCostUsd, value: state.usage.total.cost_usd },
      ...(input.parentSessionId ? [{ key: LoopParentSession, value: input.parentSessionId }] : []),
    ]);
  };

  if (!carry) {
    state.status = 'running';
    emit('session_started', {
      data: { goal_hash: input.goalHash, harness: input.harness, workflow_run_id: workflowInfo().runId },
    });
    publish();
    await session.initSession({ input, flush: drain() });
  }

  const startedMs = carry?.startedMs ?? Date.now();
  const conversations = new Map<string, string>(carry?.conversations ?? []);
  let previousRoutine: string | null = carry?.previousRoutine ?? null;
  const continueAsNewDue = (): boolean => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= (input.continueAsNewAfterEvents ?? Infinity);
  };
  let stop: { kind: StopKind; reason: string } | null = null;

  const limitReached = (): { kind: StopKind; reason: string } | null => {
    const { limits } = input;
    if (limits.maxIterations !== null && state.iteration >= limits.maxIterations) {
      return {
        kind: 'max_iterations',
        reason: `max iterations: ran ${state.iteration} of ${limits.maxIterations}`,
      };
    }
    const spent = state.usage.total.cost_usd;
    if (limits.maxCostUsd !== null && spent >= limits.maxCostUsd) {
      return {
        kind: 'budget',
        reason: `budget: spent $${spent.toFixed(2)} of $${limits.maxCostUsd.toFixed(2)}${spent > limits.maxCostUsd ? '; the last call went over' : ''}`,
      };
    }
    if (limits.maxDurationMs !== null && Date.now() - startedMs >= limits.maxDurationMs) {
      return {
        kind: 'max_duration',
        reason: `max duration: ran ${Math.round((Date.now() - startedMs) / 1000)} s`,
      };
    }
    if (state.consecutive_failures >= limits.maxConsecutiveFailures) {
      return {
        kind: 'consecutive_failures',
        reason: `${state.consecutive_failures} consecutive failed iterations`,
      };
    }
    return null;
  };

  for (;;) {
    noteTemporalCancellation();
    if (stopRequest) {
      const { reason, by } = stopRequest as { reason: string; by: string };
      stop = { kind: by === 'parent' ? 'parent' : 'user', reason };
      break;
    }
    if (state.dispatch.paused) {
      state.status = 'paused';
      setCurrentDetails(`paused after iteration ${state.iteration}`);
      publish();
      await unlessCancelled(async () => {
        await session.flush(drain());
        await condition(() => !state.dispatch.paused || stopRequest !== null);
      });
      state.status = 'running';
      publish();
      continue;
    }
    stop = limitReached();
    if (stop) break;
    // Patched: a session that passed the threshold on an older build replays its turns, not a continue-as-new.
    if (continueAsNewDue() && patched('continue-as-new')) {
      await unlessCancelled(() => session.flush(drain()));
      // A signal that arrived during that write is the loop's to handle first.
      if (!stopRequest && !state.dispatch.paused && !CancellationScope.current().consideredCancelled) {
        await continueAsNew<typeof goalSession>(input, {
          state: { ...clone(state), history: state.history.slice(-CARRIED_HISTORY) },
          seq,
          startedMs,
          conversations: [...conversations],
          previousRoutine,
          children: children.records(),
          events: pending,
          acknowledge,
        });
      }
      continue;
    }

    const n = state.iteration + 1;
    const routine: Routine = pickRoutine(input.routines, n, previousRoutine);
    const harness = routine.harness ?? input.harness;
    state.iteration = n;
    state.dispatch.active_iteration = { number: n, routine_id: routine.id, started_at: now() };
    emit('iteration_started', { iteration: n, routine_id: routine.id, data: { harness } });
    setCurrentDetails(`iteration ${n} · ${routine.id} · ${harness}`);
    const due = publishedStatus !== state.status || Date.now() - publishedAt >= SEARCH_ATTRIBUTE_REFRESH_MS;
    if (due || !patched('search-attributes-once-a-second')) publish();

    let conversation: { id: string; resume: boolean } | null = null;
    if (routine.harness_options.conversation === 'continue') {
      const known = conversations.get(routine.id);
      conversation = known ? { id: known, resume: true } : { id: uuid4(), resume: false };
    }
    const remaining =
      input.limits.maxCostUsd === null
        ? null
        : Math.max(0, input.limits.maxCostUsd - state.usage.total.cost_usd);

    let outcome: IterationOutcome | null = null;
    let failure: string | null = null;
    const dispatchedAt = now();
    try {
      iterationScope = new CancellationScope();
      outcome = await iterationScope.run(() =>
        iterations.runIteration.executeWithOptions(
          {
            taskQueue: input.hostQueue,
            startToCloseTimeout: input.iterationTimeoutMs + 60_000,
            heartbeatTimeout: input.heartbeatTimeoutMs,
            cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            retry: { initialInterval: '1s', maximumInterval: '10s', nonRetryableErrorTypes: ['BadInput'] },
            summary: `${String(n).padStart(4, '0')} ${routine.id} · ${harness}`,
          },
          [
            {
              flush: drain(),
              input: {
                sessionId: input.sessionId,
                sessionDir: input.sessionDir,
                cwd: input.cwd,
                goal: input.goal,
                harness: input.harness,
                harnessCommand: input.harnessCommand,
                iterationTimeoutMs: input.iterationTimeoutMs,
              },
              iteration: n,
              routine,
              conversation,
              remainingBudgetUsd: remaining,
            },
          ],
        ),
      );
    } catch (error) {
      if (isCancellation(error)) noteTemporalCancellation();
      // A cancelled turn whose worker is gone ends in a heartbeat timeout, not a cancellation; and a turn that
      // failed for good (e.g. a bad harness name) is a failed iteration, not a failed session.
      // A stop can catch a turn whose worker is gone: its cancellation times out, or cancels a retry that never
      // started while the first attempt's harness may still run. Either way the turn is salvaged, not forgotten.
      if (stopRequest && patched('salvage-turn-lost-at-stop')) {
        const salvaged = await CancellationScope.nonCancellable(() =>
          session.salvageStoppedIteration({
            sessionDir: input.sessionDir,
            iteration: n,
            routineId: routine.id,
          }),
        );
        failure = salvaged.error;
      } else if (isCancellation(error) || stopRequest) failure = 'stopped: the iteration was cancelled';
      else failure = `the iteration failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      iterationScope = null;
    }

    const usage = outcome?.usage ?? null;
    if (usage) {
      state.usage.own = addUsage(state.usage.own, usage);
      state.usage.total = addUsage(state.usage.own, state.usage.children);
    }
    const success = outcome?.result.success ?? false;
    state.history.push({
      iteration: n,
      routine_id: routine.id,
      started_at: outcome?.startedAt ?? dispatchedAt,
      finished_at: outcome?.finishedAt ?? now(),
      success,
      error: outcome ? outcome.result.error : failure,
      harness_run_id: outcome?.result.harness_run_id ?? null,
      usage,
      recovered: outcome?.recovered ?? false,
    });
    state.consecutive_failures = success ? 0 : state.consecutive_failures + 1;
    state.dispatch.active_iteration = null;
    if (outcome?.conversationId && routine.harness_options.conversation === 'continue') {
      conversations.set(routine.id, outcome.conversationId);
    }
    previousRoutine = routine.id;
    if (outcome) acknowledge.push({ iteration: n, routineId: routine.id });
    const abandoned = outcome?.abandoned ?? null;
    emit(
      abandoned ? 'iteration_abandoned' : outcome?.recovered ? 'iteration_recovered' : 'iteration_finished',
      {
        iteration: n,
        routine_id: routine.id,
        data: {
          success,
          error: outcome ? outcome.result.error : failure,
          ...(abandoned ? { salvage_file: abandoned.salvageFile, salvage_reports: abandoned.reports } : {}),
          cost_usd: usage?.cost_usd ?? 0,
          total_cost_usd: state.usage.total.cost_usd,
          ...(outcome?.result.harness_session_id
            ? { harness_session_id: outcome.result.harness_session_id }
            : {}),
          ...(outcome?.result.permission_denials
            ? { permission_denials: outcome.result.permission_denials }
            : {}),
          ...(outcome?.goalCheck ? { goal_met: outcome.goalCheck.goal_met } : {}),
          ...(outcome?.controlError ? { control_error: outcome.controlError } : {}),
        },
      },
    );
    // The next turn's upsert, in this same workflow task, carries the new cost; publish now only when something
    // may wait before it (a child session) — one upsert per turn instead of two.
    if (!patched('one-upsert-per-turn') || (outcome?.childRequests?.length ?? 0) > 0) publish();

    if (outcome?.control.state === 'stopped') {
      stop = { kind: 'control', reason: outcome.control.reason?.trim() || 'stopped through control.json' };
      break;
    }
    await unlessCancelled(() => children.dispatch(outcome?.childRequests));
  }

  state.status = 'stopped';
  state.stop = { kind: stop.kind, reason: stop.reason, requested_by: state.stop.requested_by, at: now() };
  emit('session_stopped', {
    data: {
      kind: stop.kind,
      reason: stop.reason,
      iterations: state.iteration,
      cost_usd: state.usage.total.cost_usd,
    },
  });
  setCurrentDetails(`stopped: ${stop.reason}`);
  publish();
  // The final projection must land even when the session was stopped: run it outside the cancelled scope.
  await CancellationScope.nonCancellable(() => session.finishSession({ flush: drain(), stop }));
  return { sessionId: input.sessionId, stop, iterations: state.iteration, usage: state.usage.total };
}
