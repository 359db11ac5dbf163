import { sessionStateFileSchema } from '../../../../src/session/schemas/state';
import { emptyUsage } from '../../../../src/session/usage-math';
import {
  applyTurnBook,
  bookTurn,
  controlStop,
  conversationFor,
  conversationReset,
  iterationRequest,
  newSessionState,
  permissionRefused,
  turnDetails,
  turnSummary,
  type EndedTurn,
} from '../../../../src/workflows/goal-session/bookkeeping';
import type { GoalSessionInput, IterationOutcome, Usage } from '../../../../src/workflows/goal-session/types';

const usage = (cost: number): Usage => ({ ...emptyUsage(), cost_usd: cost, num_turns: 1, input_tokens: 10 });

function outcome(over: Partial<IterationOutcome> = {}): IterationOutcome {
  return {
    result: { success: true, text: 'done', error: null, harness_run_id: 'run-1', harness_output_dir: null },
    usage: usage(0.5),
    control: { state: 'running', reason: null },
    controlError: null,
    goalCheck: null,
    conversationId: null,
    recovered: false,
    aborted: false,
    startedAt: '2026-11-30T10:00:01.000Z',
    finishedAt: '2026-11-30T10:00:09.000Z',
    ...over,
  };
}

const fresh = { id: 'work', harness_options: { conversation: 'fresh' as const } };
const continuing = { id: 'review', harness_options: { conversation: 'continue' as const } };

function ended(over: Partial<EndedTurn> = {}): EndedTurn {
  return {
    iteration: 3,
    routine: fresh,
    dispatchedAt: '2026-11-30T10:00:00.000Z',
    recordedAt: '2026-11-30T10:00:10.000Z',
    outcome: outcome(),
    failure: null,
    ...over,
  };
}

const before = () => {
  const state = newSessionState('s1', '2026-11-30T09:00:00.000Z');
  state.usage.children = usage(1);
  state.usage.total = usage(1);
  state.consecutive_failures = 2;
  return state;
};

describe('goal-session turn bookkeeping', () => {
  it('a new session state is a valid state.json', () => {
    expect(() =>
      sessionStateFileSchema.parse(newSessionState('s1', '2026-11-30T09:00:00.000Z')),
    ).not.toThrow();
  });

  it('names a turn by its zero-padded number, routine and harness', () => {
    expect(turnSummary(7, 'review', 'claude')).toBe('0007 review · claude');
    expect(turnDetails(7, 'review', 'claude')).toBe('iteration 7 · review · claude');
  });

  it('puts the book of an ended turn into the state: ledger, history, streak, no active turn', () => {
    const state = before();
    state.dispatch.active_iteration = { number: 3, routine_id: 'work', started_at: state.started_at };
    const book = bookTurn(state, ended());
    applyTurnBook(state, book);
    expect(state.usage.own.cost_usd).toBe(0.5);
    expect(state.usage.total.cost_usd).toBe(1.5);
    expect(state.usage.children.cost_usd).toBe(1);
    expect(state.history).toEqual([book.entry]);
    expect(state.consecutive_failures).toBe(0);
    expect(state.dispatch.active_iteration).toBeNull();
  });

  it('continues a routine conversation, and draws a new id only for a new one', () => {
    const newId = jest.fn(() => 'new-id');
    expect(conversationFor(fresh, 'known', newId)).toBeNull();
    expect(conversationFor(continuing, 'known', newId)).toEqual({ id: 'known', resume: true });
    expect(newId).not.toHaveBeenCalled();
    expect(conversationFor(continuing, undefined, newId)).toEqual({ id: 'new-id', resume: false });
    expect(newId).toHaveBeenCalledTimes(1);
  });

  it("charges a successful turn to the session's own ledger and ends the failure streak", () => {
    const book = bookTurn(before(), ended());
    expect(book.usage.own.cost_usd).toBe(0.5);
    expect(book.usage.total.cost_usd).toBe(1.5);
    expect(book.consecutiveFailures).toBe(0);
    expect(book.entry).toEqual({
      iteration: 3,
      routine_id: 'work',
      started_at: '2026-11-30T10:00:01.000Z',
      finished_at: '2026-11-30T10:00:09.000Z',
      success: true,
      error: null,
      harness_run_id: 'run-1',
      usage: usage(0.5),
      recovered: false,
    });
    expect(book.event).toEqual({
      type: 'iteration_finished',
      data: { success: true, error: null, cost_usd: 0.5, total_cost_usd: 1.5 },
    });
  });

  it('records a turn without an outcome with the workflow times and its failure, and extends the streak', () => {
    const state = before();
    const book = bookTurn(state, ended({ outcome: null, failure: 'the iteration failed: boom' }));
    expect(book.usage).toEqual({ own: state.usage.own, total: state.usage.total });
    expect(book.consecutiveFailures).toBe(3);
    expect(book.entry).toMatchObject({
      started_at: '2026-11-30T10:00:00.000Z',
      finished_at: '2026-11-30T10:00:10.000Z',
      success: false,
      error: 'the iteration failed: boom',
      harness_run_id: null,
      usage: null,
    });
    expect(book.event.data).toEqual({
      success: false,
      error: 'the iteration failed: boom',
      cost_usd: 0,
      total_cost_usd: 1,
    });
  });

  it('names abandoned and recovered turns, with their salvage, goal check and control error', () => {
    const abandoned = bookTurn(
      before(),
      ended({
        outcome: outcome({
          result: {
            success: false,
            text: '',
            error: 'abandoned',
            harness_run_id: null,
            harness_output_dir: null,
          },
          abandoned: { error: 'abandoned', salvageFile: 'salvage.json', reports: 2, harnessRunId: null },
          goalCheck: { goal_met: false } as IterationOutcome['goalCheck'],
          controlError: 'control.json: bad state',
        }),
      }),
    );
    expect(abandoned.event.type).toBe('iteration_abandoned');
    expect(abandoned.event.data).toMatchObject({
      salvage_file: 'salvage.json',
      salvage_reports: 2,
      goal_met: false,
      control_error: 'control.json: bad state',
    });
    expect(bookTurn(before(), ended({ outcome: outcome({ recovered: true }) })).event.type).toBe(
      'iteration_recovered',
    );
  });

  it('keeps a conversation id only for a routine that continues its conversation', () => {
    const withId = outcome({ conversationId: 'conv-9' });
    expect(bookTurn(before(), ended({ outcome: withId })).conversationId).toBeNull();
    expect(bookTurn(before(), ended({ routine: continuing, outcome: withId })).conversationId).toBe('conv-9');
  });

  it('builds the harness turn request from the session input and the turn', () => {
    const input = {
      sessionId: 's1',
      sessionDir: '/s',
      cwd: '/w',
      goal: 'g',
      harness: 'claude',
      harnessCommand: null,
      iterationTimeoutMs: 1000,
      limits: { maxIterations: null, maxCostUsd: null, maxDurationMs: null, maxConsecutiveFailures: 3 },
    } as unknown as GoalSessionInput;
    const routine = { ...fresh, prompt: 'p', emits_goal_check: false, when: { default: true as const } };
    const flush = { sessionDir: '/s', state: newSessionState('s1', 'x'), events: [], acknowledge: [] };
    const request = iterationRequest(input, { iteration: 2, routine, conversation: null }, flush, 0.75);
    expect(request.input).toEqual({
      sessionId: 's1',
      sessionDir: '/s',
      cwd: '/w',
      goal: 'g',
      harness: 'claude',
      harnessCommand: null,
      iterationTimeoutMs: 1000,
    });
    expect(request).toMatchObject({
      iteration: 2,
      routine,
      conversation: null,
      remainingBudgetUsd: 0.75,
      flush,
    });
  });

  it('stops through control.json only when it says stopped', () => {
    expect(controlStop(null)).toBeNull();
    expect(controlStop(outcome())).toBeNull();
    expect(controlStop(outcome({ control: { state: 'stopped', reason: '  done  ' } }))).toEqual({
      kind: 'control',
      reason: 'done',
    });
    expect(controlStop(outcome({ control: { state: 'stopped', reason: null } }))?.reason).toBe(
      'stopped through control.json',
    );
  });
});

describe('a turn refused its tool calls', () => {
  const refused = {
    success: false,
    text: '',
    error: 'claude refused every tool call',
    harness_run_id: null,
    harness_output_dir: null,
  };
  const denials = { count: 2, tools: ['Bash', 'Write'] };
  it('waits for a person when it failed with permission denials and asked for no stop', () => {
    expect(permissionRefused(outcome({ result: { ...refused, permission_denials: denials } }))).toEqual(
      denials,
    );
  });
  it('is nothing for a turn that succeeded anyway, failed for another reason, or asked to stop', () => {
    expect(permissionRefused(null)).toBeNull();
    const ok = outcome().result;
    expect(permissionRefused(outcome({ result: { ...ok, permission_denials: denials } }))).toBeNull();
    expect(permissionRefused(outcome({ result: refused }))).toBeNull();
    const stopped = { state: 'stopped' as const, reason: 'done' };
    expect(
      permissionRefused(outcome({ result: { ...refused, permission_denials: denials }, control: stopped })),
    ).toBeNull();
  });
});

describe('a conversation that could not be continued', () => {
  const asked = { id: 'conv-1', resume: true };
  it('is one the turn was asked to resume and ran in another: from, to', () => {
    const turn = { conversation: asked, outcome: outcome({ conversationId: 'conv-2' }) };
    expect(conversationReset(turn)).toEqual({ from: 'conv-1', to: 'conv-2' });
  });
  it('is none when it was resumed, newly opened, fresh, or the turn has no outcome', () => {
    expect(
      conversationReset({ conversation: asked, outcome: outcome({ conversationId: 'conv-1' }) }),
    ).toBeNull();
    const opened = { id: 'conv-3', resume: false };
    expect(
      conversationReset({ conversation: opened, outcome: outcome({ conversationId: 'conv-3' }) }),
    ).toBeNull();
    expect(conversationReset({ conversation: null, outcome: outcome({ conversationId: 'x' }) })).toBeNull();
    expect(conversationReset({ conversation: asked, outcome: null })).toBeNull();
    expect(conversationReset({ conversation: asked, outcome: outcome({ conversationId: null }) })).toBeNull();
  });
});
