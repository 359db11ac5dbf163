import {
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  TerminatedFailure,
  uuid4,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { ChildRecord, ChildStatus } from '../../session/schemas/children';
import type { SessionEvent, SessionEventType } from '../../session/schemas/event';
import type { Usage } from '../../session/schemas/usage';
import {
  childLimits,
  childSessionId,
  childStatusForStop,
  describeStop,
  selectPendingRequests,
  sumUsage,
  type ChildRequestScan,
} from './plan';
import { clone } from '../clone';
import type { goalSession } from '../goal-session/workflow';
import type { Flush, GoalSessionInput, GoalSessionResult, SessionStateFile } from '../goal-session/types';
import { pauseSignal, resumeSignal, stopSignal } from '../goal-session/messages';
import { goalDetails, goalSummary, searchableGoal } from '../goal-session/presentation';
import { LoopGoal, LoopHarness, LoopKind, LoopParentSession, LoopStatus } from '../search-attributes';

export interface ChildCoordinatorContext {
  input: GoalSessionInput;
  state: SessionStateFile;
  emit: (type: SessionEventType, extra?: Partial<Pick<SessionEvent, 'iteration' | 'data'>>) => void;
  /** Sends the parent's next projection with an activity (GoalSession.project). */
  project: <T>(send: (flush: Flush) => Promise<T>) => Promise<T>;
  publish: () => void;
  /** The stop the parent received, if any. */
  stopRequest: () => { reason: string; by: string } | null;
  startedMs: number;
  /** children.json's records so far: empty for a new session, carried over when a session continues as new. */
  records?: ChildRecord[];
}

export interface ChildCoordinator {
  /** Dispatches the new requests one child at a time; returns when the last child has ended (or on stop). */
  dispatch(scans: readonly ChildRequestScan[] | undefined): Promise<void>;
  /** Called by the parent's signal handlers: pause, resume and stop reach the active child. */
  forward(kind: 'pause' | 'resume' | 'stop'): void;
  /** The records, for a continue-as-new (no child is active between turns). */
  records(): ChildRecord[];
}

const now = () => new Date().toISOString();

/**
 * Child sessions of one goal session (the layout doc's child_requests/, children/, children.json): child
 * workflows of the same type, one active at a time while the parent waits, charged to the parent's ledger with
 * their whole subtree. Workflow code: deterministic.
 */
export function createChildCoordinator(ctx: ChildCoordinatorContext): ChildCoordinator {
  const { input, state } = ctx;
  const records: ChildRecord[] = clone(ctx.records ?? []);
  let active: ChildWorkflowHandle<typeof goalSession> | null = null;
  // Built at each call: the session's host queue changes when it moves to another host.
  const acts = () =>
    proxyActivities<Activities>({
      taskQueue: input.hostQueue,
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: '1s', maximumInterval: '10s' },
    });

  // The record of a child must land even when the parent is being cancelled (its children with it).
  const record = () =>
    CancellationScope.nonCancellable(() =>
      ctx.project((flush) =>
        acts().recordChildren({ flush, children: { schema_version: 1, children: clone(records) } }),
      ),
    );

  const send = (kind: 'pause' | 'resume' | 'stop') => {
    const handle = active;
    if (!handle) return;
    const sent =
      kind === 'stop'
        ? handle.signal(stopSignal, {
            reason: ctx.stopRequest()?.reason ?? 'the parent stopped',
            by: 'parent',
          })
        : handle.signal(kind === 'pause' ? pauseSignal : resumeSignal);
    // A child that has just ended cannot be signalled; that is not the parent's failure.
    sent.catch(() => undefined);
  };

  const reject = async (scan: ChildRequestScan, reason: string) => {
    records.push({
      request_file: scan.file,
      session_id: null,
      status: 'rejected',
      reason,
      outcome: null,
      usage: null,
      requested_at: scan.modifiedAt,
      finished_at: now(),
      request_fingerprint: scan.fingerprint,
    });
    ctx.emit('child_rejected', { data: { request_file: scan.file, reason } });
    await record();
  };

  const runOne = async (scan: ChildRequestScan) => {
    const request = scan.request;
    if (!request || !scan.goalHash) return reject(scan, scan.error ?? 'invalid request');
    const limits = childLimits(request, {
      limits: input.limits,
      spentUsd: state.usage.total.cost_usd,
      elapsedMs: Date.now() - ctx.startedMs,
    });
    if (!limits.ok) return reject(scan, limits.reason);

    const startedAt = now();
    const sessionId = childSessionId(scan.goalHash, startedAt, uuid4().replace(/-/g, ''));
    const childInput: GoalSessionInput = {
      ...input,
      sessionId,
      sessionDir: `${input.sessionDir.replace(/\/+$/, '')}/children/${sessionId}`,
      goal: request.goal,
      goalHash: scan.goalHash,
      createdAt: startedAt,
      harness: request.harness ?? input.harness,
      routines: scan.routines ?? input.routines,
      routinesFile: scan.routines ? scan.routinesFile : input.routinesFile,
      limits: {
        maxIterations: limits.maxIterations,
        maxCostUsd: limits.maxCostUsd,
        maxDurationMs: limits.maxDurationMs,
        maxConsecutiveFailures: input.limits.maxConsecutiveFailures,
      },
      parentSessionId: input.sessionId,
      // a child asks its parent, not a person: its question ends its turn like any other reply
      ...(input.waitOnQuestion !== undefined ? { waitOnQuestion: false } : {}),
      ...(input.waitOnPermission !== undefined ? { waitOnPermission: false } : {}),
    };
    const rec: ChildRecord = {
      request_file: scan.file,
      session_id: sessionId,
      status: 'dispatching',
      reason: limits.capped
        ? `max_cost_usd capped at $${(limits.maxCostUsd ?? 0).toFixed(2)}, what the parent had left`
        : null,
      outcome: null,
      usage: null,
      requested_at: scan.modifiedAt,
      finished_at: null,
      request_fingerprint: scan.fingerprint,
      max_iterations: limits.maxIterations,
      max_cost_usd: limits.maxCostUsd,
      started_at: startedAt,
    };
    records.push(rec);
    state.active_child_session_id = sessionId;
    ctx.emit('child_dispatched', {
      data: {
        request_file: scan.file,
        child_session_id: sessionId,
        goal_hash: scan.goalHash,
        max_iterations: limits.maxIterations,
        max_cost_usd: limits.maxCostUsd,
        ...(limits.capped ? { requested_max_cost_usd: request.max_cost_usd } : {}),
      },
    });
    await record();

    let status: ChildStatus;
    let outcome: string;
    let usage: Usage | null;
    try {
      active = await startChild<typeof goalSession>('goalSession', {
        workflowId: sessionId,
        taskQueue: input.taskQueue,
        args: [childInput],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        memo: { sessionDir: childInput.sessionDir, cwd: childInput.cwd, parentSessionId: input.sessionId },
        staticSummary: `child · ${goalSummary(request.goal)}`,
        staticDetails: `Child session of ${input.sessionId} (${scan.file})\n\n${goalDetails(request.goal, childInput.sessionDir)}`,
        typedSearchAttributes: [
          { key: LoopKind, value: 'goal' },
          { key: LoopStatus, value: 'starting' },
          { key: LoopHarness, value: childInput.harness },
          { key: LoopParentSession, value: input.sessionId },
          { key: LoopGoal, value: searchableGoal(request.goal) },
        ],
      });
      rec.status = 'running';
      // What arrived while the child was being started reaches it now.
      if (ctx.stopRequest()) send('stop');
      else if (state.dispatch.paused) send('pause');
      await record();
      const result: GoalSessionResult = await active.result();
      status = childStatusForStop(result.stop.kind);
      outcome = describeStop(result.stop.kind, result.stop.reason);
      usage = result.usage;
    } catch (error) {
      if (!(error instanceof ChildWorkflowFailure) && !isCancellation(error)) throw error;
      const cause: Error | undefined = error instanceof ChildWorkflowFailure ? error.cause : (error as Error);
      status = isCancellation(cause) || cause instanceof TerminatedFailure ? 'stopped' : 'failed';
      outcome = `${status}: ${cause?.message ?? (error as Error).message}`;
      usage = await CancellationScope.nonCancellable(() => acts().readSessionUsage(childInput.sessionDir));
    } finally {
      active = null;
    }

    rec.status = status;
    rec.outcome = outcome;
    rec.usage = usage;
    rec.finished_at = now();
    if (usage) {
      state.usage.children = sumUsage(state.usage.children, usage);
      state.usage.total = sumUsage(state.usage.own, state.usage.children);
    }
    state.active_child_session_id = null;
    ctx.emit('child_finished', {
      data: {
        request_file: scan.file,
        child_session_id: sessionId,
        status,
        outcome,
        cost_usd: usage?.cost_usd ?? 0,
        total_cost_usd: state.usage.total.cost_usd,
      },
    });
    ctx.publish();
    await record();
  };

  return {
    records: () => clone(records),
    async dispatch(scans) {
      for (const scan of selectPendingRequests(records, scans ?? [])) {
        if (state.dispatch.paused && !ctx.stopRequest()) {
          await condition(() => !state.dispatch.paused || ctx.stopRequest() !== null);
        }
        // After a stop, requests not yet dispatched stay in child_requests/ without a record.
        if (ctx.stopRequest()) return;
        await runOne(scan);
      }
    },
    forward: send,
  };
}
