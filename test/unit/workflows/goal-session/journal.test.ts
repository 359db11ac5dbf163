import { historyEntry } from '../../../support/history-entry';
import { sessionEventSchema } from '../../../../src/session/schemas/event';
import { newSessionState } from '../../../../src/workflows/goal-session/bookkeeping';
import {
  FLUSHED_HISTORY_WINDOW,
  projectionFound,
  SessionJournal,
} from '../../../../src/workflows/goal-session/journal';

function stateWithHistory(entries: number) {
  const state = newSessionState('s1', '2026-11-30T09:00:00.000Z');
  for (let i = 1; i <= entries; i += 1) {
    state.history.push(historyEntry(i));
  }
  return state;
}

describe('goal-session journal', () => {
  it('numbers events from 1 and hands them out once written', () => {
    const journal = new SessionJournal('s1', '/s', undefined);
    journal.emit('session_started');
    journal.emit('iteration_started', { iteration: 1, routine_id: 'work', data: { harness: 'claude' } });
    const first = journal.drain(stateWithHistory(0));
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    for (const event of first.events) expect(() => sessionEventSchema.parse(event)).not.toThrow();
    expect(first.events[1]).toMatchObject({ session_id: 's1', iteration: 1, data: { harness: 'claude' } });
    journal.written(first);
    expect(journal.drain(stateWithHistory(0)).events).toEqual([]);
  });

  it('projects only the newest history entries, as a copy', () => {
    const state = stateWithHistory(FLUSHED_HISTORY_WINDOW + 3);
    const flush = new SessionJournal('s1', '/s').drain(state);
    expect(flush.sessionDir).toBe('/s');
    expect(flush.state.history.map((h) => h.iteration)).toEqual([4, 5, 6, 7]);
    expect(state.history).toHaveLength(7);
    flush.state.iteration = 99;
    expect(state.iteration).toBe(0);
  });

  it('acknowledges recorded turns once written', () => {
    const journal = new SessionJournal('s1', '/s');
    journal.acknowledge(3, 'work');
    const flush = journal.drain(stateWithHistory(0));
    expect(flush.acknowledge).toEqual([{ iteration: 3, routineId: 'work' }]);
    journal.written(flush);
    expect(journal.drain(stateWithHistory(0)).acknowledge).toEqual([]);
  });

  it('carries what is unwritten into the next run, which numbers on from there', () => {
    const journal = new SessionJournal('s1', '/s');
    journal.emit('session_started');
    journal.written(journal.drain(stateWithHistory(0)));
    journal.emit('user_update', { data: { bytes: 3 } });
    journal.acknowledge(1, 'work');
    const carry = journal.carry();
    expect(carry.seq).toBe(2);
    expect(carry.events.map((e) => e.type)).toEqual(['user_update']);
    const next = new SessionJournal('s1', '/s', carry);
    next.emit('iteration_started');
    const flush = next.drain(stateWithHistory(0));
    expect(flush.events.map((e) => e.seq)).toEqual([2, 3]);
    expect(flush.acknowledge).toEqual([{ iteration: 1, routineId: 'work' }]);
  });

  it('sends again what a projection carried until its activity is confirmed written', () => {
    const journal = new SessionJournal('s1', '/s');
    journal.emit('iteration_finished', { iteration: 10 });
    journal.acknowledge(10, 'work');
    // The turn's activity carried this projection and was cancelled before it wrote anything.
    const lost = journal.drain(stateWithHistory(0));
    journal.emit('stop_requested');
    const next = journal.drain(stateWithHistory(0));
    expect(next.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(next.acknowledge).toEqual(lost.acknowledge);
    expect(journal.carry().events.map((e) => e.seq)).toEqual([1, 2]);
    journal.written(next);
    journal.emit('session_stopped');
    const last = journal.drain(stateWithHistory(0));
    expect(last.events.map((e) => e.seq)).toEqual([3]);
    expect(last.acknowledge).toEqual([]);
  });

  it('confirms only up to what a projection carried when a later one is still unconfirmed', () => {
    const journal = new SessionJournal('s1', '/s');
    journal.emit('session_paused');
    const first = journal.drain(stateWithHistory(0));
    journal.emit('session_resumed');
    journal.drain(stateWithHistory(0));
    journal.written(first);
    expect(journal.drain(stateWithHistory(0)).events.map((e) => e.seq)).toEqual([2]);
  });

  it('replays histories recorded before the confirmation as they ran: drained is gone', () => {
    const journal = new SessionJournal('s1', '/s', undefined, {
      resendUnconfirmed: false,
      repairProjection: false,
    });
    journal.emit('session_started');
    journal.drain(stateWithHistory(0));
    expect(journal.drain(stateWithHistory(0)).events).toEqual([]);
  });

  it('after a projection found history entries missing on disk, the next one carries the whole history, once', () => {
    const state = stateWithHistory(FLUSHED_HISTORY_WINDOW + 3);
    const journal = new SessionJournal('s1', '/s');
    const first = journal.drain(state);
    expect(first.heldFrom).toBe(1);
    journal.written(first, projectionFound({ result: {}, projection: { historyGap: true } }));
    const whole = journal.drain(state);
    expect(whole.state.history.map((h) => h.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(whole.events.map((e) => e.type)).toEqual(['projection_repaired']);
    expect(whole.events[0]?.data).toEqual({ history_entries: 7 });
    journal.written(whole, projectionFound({ historyGap: false }));
    expect(journal.drain(state).state.history).toHaveLength(FLUSHED_HISTORY_WINDOW);
  });

  it('repairs nothing in histories recorded before the repair, and reads no report from other results', () => {
    const state = stateWithHistory(6);
    const journal = new SessionJournal('s1', '/s', undefined, {
      resendUnconfirmed: true,
      repairProjection: false,
    });
    const flush = journal.drain(state);
    journal.written(flush, { historyGap: true });
    expect(journal.drain(state).state.history).toHaveLength(FLUSHED_HISTORY_WINDOW);
    expect(projectionFound(undefined)).toBeUndefined();
    expect(projectionFound({ result: {} })).toBeUndefined();
  });

  it('numbers every projection one higher, and a snapshot carries the state alone', () => {
    const journal = new SessionJournal('s1', '/s');
    const state = stateWithHistory(0);
    journal.emit('session_started');
    const first = journal.drain(state);
    expect(first.state.projection).toBe(1);
    journal.written(first);
    journal.emit('session_paused');
    journal.acknowledge(1, 'work');
    state.dispatch.paused = true;
    const snapshot = journal.snapshot(state);
    expect(snapshot.state.projection).toBe(2);
    expect(snapshot.state.dispatch.paused).toBe(true);
    expect(snapshot.events).toEqual([]);
    expect(snapshot.acknowledge).toEqual([]);
    // the events wait for the next drain, in their order
    const next = journal.drain(state);
    expect(next.state.projection).toBe(3);
    expect(next.events.map((e) => e.type)).toEqual(['session_paused']);
    expect(next.acknowledge).toEqual([{ iteration: 1, routineId: 'work' }]);
    // the number lives in the state, so a continue-as-new carries it on
    expect(state.projection).toBe(3);
  });
});
