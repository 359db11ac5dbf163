import {
  childRequestSchema,
  childrenFileSchema,
  controlFileSchema,
  goalCheckFileSchema,
  pendingFinishedRequestSchema,
  resultFileSchema,
  salvageFileSchema,
  sessionEventSchema,
  sessionFileSchema,
  sessionStateFileSchema,
  usageSchema,
  type SessionStateFile,
} from '../../../src/session/schemas';
import { addUsage, emptyUsage } from '../../../src/session/usage-math';

const ts = '2026-04-19T14:30:22.000Z';

test('control.json is lenient about extra keys but strict about state', () => {
  expect(controlFileSchema.parse({ state: 'stopped', reason: 'done', by_agent: 'x' })).toEqual({
    state: 'stopped',
    reason: 'done',
    by_agent: 'x',
  });
  expect(controlFileSchema.parse({ state: 'running' }).reason).toBeNull();
  expect(controlFileSchema.safeParse({ state: 'stop' }).success).toBe(false);
});

test('result.json is strict', () => {
  const ok = { success: true, text: 't', error: null, harness_run_id: 'r', harness_output_dir: null };
  expect(resultFileSchema.parse(ok)).toEqual(ok);
  expect(resultFileSchema.safeParse({ ...ok, extra: 1 }).success).toBe(false);
});

test('goal_check.json requires schema_version 1', () => {
  expect(goalCheckFileSchema.safeParse({ goal_met: true, reason: 'r', schema_version: 1 }).success).toBe(
    true,
  );
  expect(goalCheckFileSchema.safeParse({ goal_met: true, reason: 'r', schema_version: 2 }).success).toBe(
    false,
  );
});

test('usage defaults and sums', () => {
  expect(usageSchema.parse({ cost_usd: 1.5 })).toEqual({ ...emptyUsage(), cost_usd: 1.5 });
  expect(usageSchema.safeParse({ cost_usd: -1 }).success).toBe(false);
  const sum = addUsage(
    { ...emptyUsage(), input_tokens: 2, cost_usd: 0.5 },
    { ...emptyUsage(), input_tokens: 3 },
  );
  expect(sum.input_tokens).toBe(5);
  expect(sum.cost_usd).toBe(0.5);
});

test('state.json round-trips', () => {
  const state: SessionStateFile = {
    schema_version: 1,
    session_id: 's',
    status: 'running',
    iteration: 1,
    dispatch: {
      active_iteration: { number: 1, routine_id: 'planner', started_at: ts },
      paused: false,
      next_routine_id: null,
    },
    history: [
      {
        iteration: 1,
        routine_id: 'planner',
        started_at: ts,
        finished_at: ts,
        success: true,
        error: null,
        harness_run_id: 'r',
        usage: emptyUsage(),
        recovered: false,
      },
    ],
    stop: { kind: null, reason: null, requested_by: null, at: null },
    active_child_session_id: null,
    usage: { own: emptyUsage(), children: emptyUsage(), total: emptyUsage() },
    consecutive_failures: 0,
    started_at: ts,
    updated_at: ts,
  };
  expect(sessionStateFileSchema.parse(state)).toEqual(state);
  expect(sessionStateFileSchema.safeParse({ ...state, stop: { ...state.stop, kind: 'bored' } }).success).toBe(
    false,
  );
});

test('events, session, pending, salvage, children, child requests', () => {
  expect(
    sessionEventSchema.safeParse({ v: 1, seq: 1, ts, session_id: 's', type: 'session_started' }).success,
  ).toBe(true);
  expect(
    sessionEventSchema.safeParse({ v: 1, seq: 0, ts, session_id: 's', type: 'session_started' }).success,
  ).toBe(false);
  expect(sessionEventSchema.safeParse({ v: 1, seq: 1, ts, session_id: 's', type: 'nope' }).success).toBe(
    false,
  );
  expect(
    sessionFileSchema.safeParse({
      session_id: 's',
      goal_hash: '71393ee22450',
      created_at: ts,
      cwd: '/w',
      workflow_id: 's',
      task_queue: 'q',
      host_queue: 'q.host.h',
      harness: 'claude',
      parent_session_id: null,
      routines_file: null,
    }).success,
  ).toBe(true);
  const result = { success: false, text: '', error: 'x', harness_run_id: null, harness_output_dir: null };
  expect(
    pendingFinishedRequestSchema.safeParse({
      session_id: 's',
      iteration: 1,
      routine_id: 'w',
      attempt: 1,
      result,
      usage: null,
      written_at: ts,
    }).success,
  ).toBe(true);
  expect(
    salvageFileSchema.safeParse({
      schema_version: 1,
      iteration: 2,
      routine_id: 'w',
      written_at: ts,
      reports: [
        {
          harness_run_id: null,
          pid: 10,
          pgid: 10,
          action: 'sigkill',
          settled: true,
          unsettled_workers: 0,
          detail: '',
        },
      ],
    }).success,
  ).toBe(true);
  expect(
    childrenFileSchema.safeParse({
      schema_version: 1,
      children: [
        {
          request_file: 'a.json',
          session_id: null,
          status: 'rejected',
          reason: 'bad',
          outcome: null,
          usage: null,
          requested_at: ts,
          finished_at: ts,
        },
      ],
    }).success,
  ).toBe(true);
  expect(childRequestSchema.safeParse({ goal: 'x', max_iterations: 2, harness: 'codex' }).success).toBe(true);
  expect(childRequestSchema.safeParse({ goal: '  ' }).success).toBe(false);
  expect(childRequestSchema.safeParse({ goal: 'x', extra: 1 }).success).toBe(false);
  expect(childRequestSchema.safeParse({ goal: 'x', max_cost_usd: 0 }).success).toBe(false);
});
