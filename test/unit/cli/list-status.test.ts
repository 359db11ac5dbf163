import { listStatusCell, listStatusFilters, matchesListStatus } from '../../../src/cli/format-session';
import { sessionStatuses, stopKinds, type SessionStateFile } from '../../../src/session/schemas/state';
import { newSessionState } from '../../../src/workflows/goal-session-bookkeeping';

const ts = '2026-04-19T14:30:22.000Z';

function stateWith(status: SessionStateFile['status'], kind: SessionStateFile['stop']['kind'] = null) {
  const state = newSessionState('s', ts);
  state.status = status;
  state.stop = { kind, reason: kind ? 'why' : null, requested_by: null, at: kind ? ts : null };
  return state;
}

test("loopy list speaks state.json's (and LoopStatus's) words, with the stop kind for a stopped session", () => {
  expect(listStatusFilters).toEqual([...sessionStatuses, 'finished']);
  for (const status of sessionStatuses.filter((s) => s !== 'stopped')) {
    expect(listStatusCell(stateWith(status))).toBe(status);
    expect(matchesListStatus(stateWith(status), status)).toBe(true);
  }
  for (const kind of stopKinds) {
    const stopped = stateWith('stopped', kind);
    expect(listStatusCell(stopped)).toBe(`stopped (${kind})`);
    expect(matchesListStatus(stopped, 'stopped')).toBe(true);
    expect(matchesListStatus(stopped, 'running')).toBe(false);
  }
});

test('`--status finished` still selects the control stops, and only them', () => {
  expect(matchesListStatus(stateWith('stopped', 'control'), 'finished')).toBe(true);
  expect(matchesListStatus(stateWith('stopped', 'user'), 'finished')).toBe(false);
  expect(matchesListStatus(stateWith('running'), 'finished')).toBe(false);
});
