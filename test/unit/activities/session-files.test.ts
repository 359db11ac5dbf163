import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFlush } from '../../../src/activities/session-files';
import { newSessionState } from '../../../src/workflows/goal-session-bookkeeping';
import type { Flush } from '../../../src/workflows/goal-session-types';

function entry(iteration: number) {
  return {
    iteration,
    routine_id: 'work',
    started_at: '2026-11-30T09:00:00.000Z',
    finished_at: '2026-11-30T09:00:01.000Z',
    success: true,
    error: null,
    harness_run_id: null,
    usage: null,
    recovered: false,
  };
}

function flush(sessionDir: string, iterations: number[], heldFrom?: number): Flush {
  const state = newSessionState('s1', '2026-11-30T09:00:00.000Z');
  state.history = iterations.map(entry);
  return { sessionDir, state, events: [], acknowledge: [], ...(heldFrom ? { heldFrom } : {}) };
}

describe('writeFlush', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a state.json that lost entries the workflow holds, and none while it holds them all', async () => {
    expect(await writeFlush(flush(dir, [1, 2, 3, 4]))).toEqual({ historyGap: false });
    expect(await writeFlush(flush(dir, [3, 4, 5, 6]))).toEqual({ historyGap: false });
    rmSync(join(dir, 'state.json'));
    // rebuilt from the newest four alone: 1 and 2 are gone
    expect(await writeFlush(flush(dir, [4, 5, 6, 7]))).toEqual({ historyGap: true });
    expect(await writeFlush(flush(dir, [1, 2, 3, 4, 5, 6, 7, 8]))).toEqual({ historyGap: false });
    const onDisk = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { history: unknown[] };
    expect(onDisk.history).toHaveLength(8);
  });

  it('asks only for the entries the workflow holds (a run continued as new holds the newest)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
    expect(await writeFlush(flush(other, [7, 8, 9, 10], 7))).toEqual({ historyGap: false });
    expect(await writeFlush(flush(other, [9, 10, 11, 12], 5))).toEqual({ historyGap: true });
    rmSync(other, { recursive: true, force: true });
  });
});
