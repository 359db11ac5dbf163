import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codexHome, codexThreadModel } from '../../../src/harness/codex-model';

// Recorded from the real codex 0.171.0 (`codex exec --json` against the mock Responses API, model gpt-5.5): the
// rollout's turn_context and token lines, the rest (instructions, messages) left out.
const THREAD = '01a23b0b-f5c9-7e01-8798-3c64415e348d';
const ROLLOUT = `rollout-2026-12-03T08-36-09-${THREAD}.jsonl`;

describe("the model of a codex thread, from codex's rollout", () => {
  it('finds the thread under any day and reads the model of its last turn', () => {
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    mkdirSync(join(home, 'sessions', '2026', '12', '03'), { recursive: true });
    mkdirSync(join(home, 'sessions', '2026', '12', '04'), { recursive: true });
    cpSync(
      join(__dirname, '../../fixtures/codex', ROLLOUT),
      join(home, 'sessions', '2026', '12', '03', ROLLOUT),
    );
    expect(codexThreadModel(home, THREAD)).toBe('gpt-5.5');
    expect(codexThreadModel(home, 'another-thread')).toBeNull();
    expect(codexThreadModel(join(home, 'missing'), THREAD)).toBeNull();
  });

  it("is $CODEX_HOME, else ~/.codex of the harness's environment", () => {
    expect(codexHome({ CODEX_HOME: '/c', HOME: '/h' })).toBe('/c');
    expect(codexHome({ HOME: '/h' })).toBe('/h/.codex');
  });
});
