import { appendFileSync, cpSync, mkdirSync, mkdtempSync } from 'node:fs';
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
      lastTurn: { toolCalls: 0, refused: [] },
    });
    expect(codexRollout(home, 'another-thread')).toBeNull();
    expect(codexRollout(join(home, 'missing'), THREAD)).toBeNull();
  });

  it("is $CODEX_HOME, else ~/.codex of the harness's environment", () => {
    expect(codexHome({ CODEX_HOME: '/c', HOME: '/h' })).toBe('/c');
    expect(codexHome({ HOME: '/h' })).toBe('/h/.codex');
  });

  it("its last turn's commands, and those the sandbox refused (a resumed thread appends its next turn)", () => {
    const home = mkdtempSync(join(tmpdir(), 'codex-home-'));
    const file = join(home, 'sessions', '2026', '12', '03', ROLLOUT);
    mkdirSync(join(home, 'sessions', '2026', '12', '03'), { recursive: true });
    cpSync(join(__dirname, '../../fixtures/codex', ROLLOUT), file);
    // the lines codex 0.171 wrote for a turn whose first command wrote outside the workspace (recorded, trimmed)
    const call = (id: string, cmd: string) => ({
      type: 'response_item',
      payload: {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd }),
        call_id: id,
      },
    });
    const output = (id: string, code: number, text: string) => ({
      type: 'response_item',
      payload: {
        type: 'function_call_output',
        call_id: id,
        output: `Chunk ID: af71c8\nWall time: 0.0000 seconds\nProcess exited with code ${code}\nOutput:\n${text}\n`,
      },
    });
    const turn = [
      { type: 'event_msg', payload: { type: 'task_started' } },
      call('c1', 'touch /etc/x'),
      output('c1', 1, "touch: cannot touch '/etc/x': Read-only file system"),
      call('c2', 'false'),
      output('c2', 1, ''),
      call('c3', 'touch inside'),
      output('c3', 0, ''),
    ];
    appendFileSync(file, turn.map((line) => `${JSON.stringify(line)}\n`).join(''));
    expect(codexRollout(home, THREAD)?.lastTurn).toEqual({
      toolCalls: 3,
      refused: [{ tool: 'exec_command', input: 'touch /etc/x' }],
    });
  });
});
