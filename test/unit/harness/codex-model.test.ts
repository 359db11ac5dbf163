import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codexHome, codexRollout } from '../../../src/harness/codex-model';

// Recorded from the real codex 0.171.0 (`codex exec --json` against the mock Responses API, model gpt-5.5): the
// rollout's turn_context and token lines, the rest (instructions, messages) left out.
const THREAD = '01a23b0b-f5c9-7e01-8798-3c64415e348d';
const ROLLOUT = `rollout-2026-12-03T08-36-09-${THREAD}.jsonl`;

describe("a codex thread's model and tokens, from codex's rollout", () => {
  it("finds the thread under any day: its last turn's model, its last token count in the ledger's kinds", () => {
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    mkdirSync(join(home, 'sessions', '2026', '12', '03'), { recursive: true });
    mkdirSync(join(home, 'sessions', '2026', '12', '04'), { recursive: true });
    cpSync(
      join(__dirname, '../../fixtures/codex', ROLLOUT),
      join(home, 'sessions', '2026', '12', '03', ROLLOUT),
    );
    // the thread's last total: 1100 in (200 of them cached), 320 out
    expect(codexRollout(home, THREAD)).toEqual({
      model: 'gpt-5.5',
      total: {
        input_tokens: 900,
        cache_read_input_tokens: 200,
        cache_creation_input_tokens: 0,
        output_tokens: 320,
      },
    });
    expect(codexRollout(home, 'another-thread')).toBeNull();
    expect(codexRollout(join(home, 'missing'), THREAD)).toBeNull();
  });

  it("is $CODEX_HOME, else ~/.codex of the harness's environment", () => {
    expect(codexHome({ CODEX_HOME: '/c', HOME: '/h' })).toBe('/c');
    expect(codexHome({ HOME: '/h' })).toBe('/h/.codex');
  });
});
