import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoardSnapshot } from '../../../src/board/snapshot';
import { configSchema } from '../../../src/config/schema';
import { iterationPaths, sessionPaths, sessionsRoot } from '../../../src/session/paths';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';
import { historyEntry } from '../../support/history-entry';

/** A goal session under `cwd` with one recorded turn, run by host `host`; `unpriced` names the models without price. */
function goalSession(cwd: string, id: string, host: string, unpriced: string[]): void {
  const dir = join(sessionsRoot(cwd), id);
  const paths = sessionPaths(dir);
  mkdirSync(dir, { recursive: true });
  const state = newSessionState(id, '2026-12-06T10:00:00.000Z');
  state.status = 'running';
  state.iteration = 1;
  state.history = [historyEntry(1)];
  state.usage.total.cost_usd = 0.25;
  writeFileSync(paths.state, JSON.stringify(state));
  writeFileSync(paths.goal, `goal of ${id}\n`);
  writeFileSync(
    paths.session,
    JSON.stringify({
      session_id: id,
      goal_hash: '0123456789ab',
      created_at: '2026-12-06T10:00:00.000Z',
      cwd,
      workflow_id: id,
      task_queue: 'the-loop',
      host_queue: `the-loop.host.${host}`,
      harness: 'codex',
      parent_session_id: null,
      routines_file: null,
    }),
  );
  const result = iterationPaths(dir, 1, 'work').result;
  mkdirSync(join(result, '..'), { recursive: true });
  writeFileSync(
    result,
    JSON.stringify({
      success: true,
      text: 'did it',
      error: null,
      harness_run_id: null,
      harness_output_dir: null,
      ...(unpriced.length > 0 ? { unpriced_models: unpriced } : {}),
    }),
  );
}

describe("the board's goal-session rows", () => {
  it('carry the host that runs them and whether a model without a price ran', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'board-goals-'));
    goalSession(cwd, 'goal-priced', 'build-box-1', []);
    goalSession(cwd, 'goal-unpriced', 'build-box-2', ['gpt-x']);
    const stateDir = mkdtempSync(join(tmpdir(), 'board-state-'));
    const snapshot = new BoardSnapshot({ config: configSchema.parse({}), stateDir }, cwd);
    const rows = new Map((await snapshot.rows()).map((row) => [row.session, row]));
    expect(rows.get('goal-priced')).toMatchObject({
      host: 'build-box-1',
      cost: { usd: 0.25, unpriced: false },
      goal: 'goal of goal-priced',
    });
    // shown as `$0.25 (+ unpriced)`, never as the whole cost
    expect(rows.get('goal-unpriced')).toMatchObject({
      host: 'build-box-2',
      cost: { usd: 0.25, unpriced: true },
    });
  });
});
