import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describeState, formatEvent, statusLines } from '../../../src/cli/format-session';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';
import { iterationPaths } from '../../../src/session/paths';
import type { SessionStateFile } from '../../../src/session/schemas/state';
import { historyEntry } from '../../support/history-entry';

test('an iteration line names the tool calls the harness refused', () => {
  const line = formatEvent({
    v: 1,
    seq: 3,
    ts: '2026-11-30T10:00:00.000Z',
    session_id: 's',
    type: 'iteration_finished',
    iteration: 1,
    routine_id: 'worker',
    data: {
      success: false,
      error: 'refused',
      cost_usd: 0.01,
      total_cost_usd: 0.01,
      permission_denials: { count: 2, tools: ['Write', 'Bash'] },
    },
  });
  expect(line).toContain('· 2 tool calls denied (Write, Bash)');
});

test("loopy status shows the last turn's harness session id and denials from its result.json", () => {
  const dir = mkdtempSync(join(tmpdir(), 'status-'));
  const result = iterationPaths(dir, 1, 'worker').result;
  mkdirSync(join(result, '..'), { recursive: true });
  writeFileSync(
    result,
    JSON.stringify({
      success: false,
      text: '',
      error: 'refused',
      harness_run_id: 'run-1',
      harness_output_dir: null,
      harness_session_id: 'abc-123',
      permission_denials: { count: 1, tools: ['Write'] },
      unpriced_models: ['gpt-unknown-1'],
    }),
  );
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: 0,
    num_turns: 0,
    duration_ms: 0,
  };
  const state = {
    session_id: 's',
    status: 'running',
    iteration: 1,
    history: [{ iteration: 1, routine_id: 'worker', success: false, error: 'refused' }],
    usage: { own: usage, children: usage, total: usage },
    dispatch: { active_iteration: null, paused: false, refused: null },
    stop: { kind: null, reason: null, requested_by: null, at: null },
    active_child_session_id: null,
  } as unknown as SessionStateFile;
  const lines = statusLines(dir, 'goal', state, null);
  expect(lines).toContain('harness id  abc-123');
  expect(lines.some((l) => l.startsWith('denied      1 tool call denied (Write)'))).toBe(true);
  // a model with no price: the cost says it is short, never a silent $0.00
  expect(lines.some((l) => l.startsWith('cost        $0.00 + unpriced (no price for gpt-unknown-1) ('))).toBe(
    true,
  );
});

test('a session whose step waits for a free activity slot shows as queued, not as running', () => {
  const state = newSessionState('s', '2026-11-30T10:00:00.000Z');
  state.status = 'queued';
  expect(describeState(state)).toBe(
    "queued: the session's set-up waits for a free activity slot on its host",
  );
  state.iteration = 3;
  state.dispatch.active_iteration = { number: 3, routine_id: 'worker', started_at: state.started_at };
  state.dispatch.paused = true;
  expect(describeState(state)).toBe(
    'queued: iteration 3 (worker) waits for a free activity slot on its host; paused after it',
  );
});

test('a session blocked by a file fault says why, where, and that loopy resume goes on', () => {
  const state = newSessionState('s', '2026-11-30T10:00:00.000Z');
  state.status = 'paused';
  state.iteration = 2;
  state.dispatch.paused = true;
  state.dispatch.blocked = {
    reason: "the session's files cannot be written: EROFS: read-only file system, open",
    path: '/p/.loopy_loop/sessions/s/state.json',
    code: 'EROFS',
    iteration: 2,
    at: '2026-11-30T10:01:00.000Z',
  };
  expect(describeState(state)).toBe(
    "paused, blocked: the session's files cannot be written: EROFS: read-only file system, open; iteration 2 waits — fix it, then run `loopy resume`",
  );
  expect(statusLines('/p/.loopy_loop/sessions/s', 'goal', state, null)).toContain(
    'blocked at  /p/.loopy_loop/sessions/s/state.json',
  );
  const event = formatEvent({
    v: 1,
    seq: 9,
    ts: '2026-11-30T10:01:00.000Z',
    session_id: 's',
    type: 'session_blocked',
    iteration: 2,
    data: {
      reason: "the session's files cannot be written: ENOSPC: no space left on device, write",
      path: '/x',
    },
  });
  expect(event).toBe(
    "[10:01:00] blocked: the session's files cannot be written: ENOSPC: no space left on device, write (/x) — nothing runs until `loopy resume`",
  );
  state.dispatch.blocked = null;
  expect(describeState(state)).toBe('paused after iteration 2');
});

test("loopy status counts the turns that left state.json's history from its sums, each once", () => {
  const state = newSessionState('s', '2026-11-30T10:00:00.000Z');
  state.iteration = 102;
  state.earlier_history = { through: 100, ok: 97, failed: 3, unpriced_models: ['gpt-old'] };
  // an entry the sums cover (a live state merged in may hold it) is not counted again
  state.history = [historyEntry(100), historyEntry(101), historyEntry(102, { success: false, error: 'x' })];
  const lines = statusLines(mkdtempSync(join(tmpdir(), 'status-')), 'goal', state, null);
  expect(lines).toContain('iterations  102 (98 ok, 4 failed)');
  expect(lines.some((l) => l.includes('+ unpriced (no price for gpt-old)'))).toBe(true);
});
