import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warnNewlyUnpriced } from '../../../src/activities/unpriced-warning';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';
import { historyEntry } from '../../support/history-entry';

/** A goal session whose turns 1 and 2 are recorded, turn 1 on a model without a price. */
function session(): { sessionId: string; sessionDir: string } {
  const sessionDir = mkdtempSync(join(tmpdir(), 'unpriced-'));
  const state = newSessionState('s-1', '2026-12-01T00:00:00.000Z');
  state.history = [historyEntry(1), historyEntry(2)];
  writeFileSync(sessionPaths(sessionDir).state, JSON.stringify(state));
  const result = (iteration: number, unpriced: string[]) => {
    const file = iterationPaths(sessionDir, iteration, 'work').result;
    mkdirSync(join(file, '..'), { recursive: true });
    const base = { success: true, text: '', error: null, harness_run_id: null, harness_output_dir: null };
    writeFileSync(
      file,
      JSON.stringify({ ...base, ...(unpriced.length ? { unpriced_models: unpriced } : {}) }),
    );
  };
  result(1, ['gpt-x']);
  result(2, []);
  return { sessionId: 's-1', sessionDir };
}

describe("a goal session's turn on a model without a price", () => {
  it('says so once per model, at the first turn that ran it', () => {
    const s = session();
    const said: string[] = [];
    warnNewlyUnpriced(s, 1, ['gpt-x'], (line) => said.push(line));
    expect(said).toEqual([
      "s-1: the model gpt-x has no price, so its turns' cost shows as unpriced: add it under pricing: in the configuration",
    ]);
    said.length = 0;
    // turn 3: gpt-x was met at turn 1, gpt-y is new
    warnNewlyUnpriced(s, 3, ['gpt-x', 'gpt-y'], (line) => said.push(line));
    expect(said).toEqual([expect.stringMatching(/^s-1: the model gpt-y has no price/) as string]);
    said.length = 0;
    warnNewlyUnpriced(s, 4, [], (line) => said.push(line));
    expect(said).toEqual([]);
  });
});
