import {
  listStatusCell,
  listStatusFilters,
  matchesListStatus,
  statusLines,
} from '../../../src/cli/format-session';
import { sessionStatuses, stopKinds, type SessionStateFile } from '../../../src/session/schemas/state';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';

const ts = '2026-04-19T14:30:22.000Z';

function stateWith(status: SessionStateFile['status'], kind: SessionStateFile['stop']['kind'] = null) {
  const state = newSessionState('s', ts);
  state.status = status;
  state.stop = { kind, reason: kind ? 'why' : null, requested_by: null, at: kind ? ts : null };
  return state;
}

test("loopy list speaks state.json's (and LoopStatus's) words, with the stop kind for a stopped session", () => {
  expect(listStatusFilters).toEqual([...sessionStatuses, 'finished', 'waiting']);
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

test('a session a fault blocks waits on a person: `waiting: blocked` in the list, selected by --status waiting, and since when in loopy status', () => {
  const blocked = stateWith('paused');
  blocked.dispatch.blocked = {
    reason: 'state.json is not writable (EACCES)',
    path: '/tmp/s/state.json',
    code: 'EACCES',
    at: ts,
    iteration: 3,
  };
  expect(listStatusCell(blocked)).toBe('waiting: blocked');
  expect(matchesListStatus(blocked, 'waiting')).toBe(true);
  expect(matchesListStatus(blocked, 'paused')).toBe(true);
  expect(matchesListStatus(stateWith('paused'), 'waiting')).toBe(false);
  expect(listStatusCell(stateWith('paused'))).toBe('paused');
  const lines = statusLines('/tmp/s', 'the goal', blocked, null);
  expect(lines).toContainEqual(
    expect.stringMatching(
      /^waiting {5}blocked since 2026-04-19T14:30:22Z \(\d+d\d\dh\): state\.json is not writable \(EACCES\) \(\/tmp\/s\/state\.json\)$/,
    ),
  );
  expect(
    statusLines('/tmp/s', 'the goal', stateWith('paused'), null).some((l) => l.startsWith('waiting')),
  ).toBe(false);
});
