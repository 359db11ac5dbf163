import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFlush } from '../../../src/activities/session-files';
import { readJsonl } from '../../../src/session/jsonl';
import { sessionPaths } from '../../../src/session/paths';
import { historyEntrySchema, sessionEventSchema, sessionStateFileSchema } from '../../../src/session/schemas';
import { STATE_HISTORY_ENTRIES } from '../../../src/session/history';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';
import type { Flush } from '../../../src/workflows/goal-session/types';
import { historyEntry } from '../../support/history-entry';

const event = (seq: number) => ({
  v: 1 as const,
  seq,
  ts: '2026-11-30T09:00:00.000Z',
  session_id: 's1',
  type: 'user_update' as const,
});

function flush(dir: string, projection: number | undefined, extra: Partial<Flush> = {}): Flush {
  const state = newSessionState('s1', '2026-11-30T09:00:00.000Z');
  state.iteration = projection ?? 0;
  return { sessionDir: dir, state: { ...state, projection }, events: [], acknowledge: [], ...extra };
}

const stateOf = (dir: string) =>
  sessionStateFileSchema.parse(JSON.parse(readFileSync(sessionPaths(dir).state, 'utf8')));

describe('writeFlush and numbered projections', () => {
  it('never replaces state.json with an older projection, but still appends its events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flush-'));
    await writeFlush(flush(dir, 5));
    // a projection drained earlier whose activity ran late (it waited for a slot, or was retried)
    await writeFlush(flush(dir, 4, { events: [event(1)] }));
    expect(stateOf(dir)).toMatchObject({ projection: 5, iteration: 5 });
    expect(readJsonl(sessionPaths(dir).events, sessionEventSchema).map((e) => e.seq)).toEqual([1]);
    // the same projection again (a retried activity) and a newer one are written
    await writeFlush(flush(dir, 5));
    expect(stateOf(dir).projection).toBe(5);
    await writeFlush(flush(dir, 6));
    expect(stateOf(dir)).toMatchObject({ projection: 6, iteration: 6 });
  });

  it('rewrites a deleted or cut-short events.jsonl whole from the workflow, never continues it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flush-'));
    const seqs = () => readJsonl(sessionPaths(dir).events, sessionEventSchema).map((e) => e.seq);
    const recorded = [1, 2, 3, 4, 5, 6].map(event);
    const recover = jest.fn(() => Promise.resolve(recorded));
    expect(await writeFlush(flush(dir, 1, { events: [event(1), event(2)] }), recover)).toEqual({
      historyGap: false,
    });
    expect(recover).not.toHaveBeenCalled(); // nothing missing: the file is only appended to
    rmSync(sessionPaths(dir).events);
    expect(await writeFlush(flush(dir, 2, { events: [event(5), event(6)] }), recover)).toEqual({
      historyGap: false,
      eventsRebuilt: 6,
    });
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6]);
    // cut short: the last event left is 2, the projection starts at 7
    const lines = readFileSync(sessionPaths(dir).events, 'utf8').split('\n');
    writeFileSync(sessionPaths(dir).events, `${lines.slice(0, 2).join('\n')}\n`);
    recorded.push(event(7));
    expect((await writeFlush(flush(dir, 3, { events: [event(7)] }), recover)).eventsRebuilt).toBe(7);
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('replaces a state.json written before projections were numbered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flush-'));
    await writeFlush(flush(dir, undefined));
    await writeFlush(flush(dir, 1));
    expect(stateOf(dir).projection).toBe(1);
  });
});

function flushOf(sessionDir: string, iterations: number[], heldFrom?: number): Flush {
  const state = newSessionState('s1', '2026-11-30T09:00:00.000Z');
  state.history = iterations.map((n) => historyEntry(n));
  return { sessionDir, state, events: [], acknowledge: [], ...(heldFrom ? { heldFrom } : {}) };
}

describe('writeFlush', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a state.json that lost entries the workflow holds, and none while it holds them all', async () => {
    expect(await writeFlush(flushOf(dir, [1, 2, 3, 4]))).toEqual({ historyGap: false });
    expect(await writeFlush(flushOf(dir, [3, 4, 5, 6]))).toEqual({ historyGap: false });
    rmSync(join(dir, 'state.json'));
    rmSync(join(dir, 'history.jsonl'));
    // rebuilt from the newest four alone: 1 and 2 are gone
    expect(await writeFlush(flushOf(dir, [4, 5, 6, 7]))).toEqual({ historyGap: true });
    expect(await writeFlush(flushOf(dir, [1, 2, 3, 4, 5, 6, 7, 8]))).toEqual({ historyGap: false });
    const onDisk = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { history: unknown[] };
    expect(onDisk.history).toHaveLength(8);
    // and history.jsonl has them back (after the four it was rebuilt from)
    expect(readJsonl(sessionPaths(dir).history, historyEntrySchema).map((e) => e.iteration)).toEqual([
      4, 5, 6, 7, 1, 2, 3, 8,
    ]);
  });

  it('asks only for the entries the workflow holds (a run continued as new holds the newest)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
    expect(await writeFlush(flushOf(other, [7, 8, 9, 10], 7))).toEqual({ historyGap: false });
    expect(await writeFlush(flushOf(other, [9, 10, 11, 12], 5))).toEqual({ historyGap: true });
    rmSync(other, { recursive: true, force: true });
  });
});

describe('writeFlush: state.json keeps the newest turns, history.jsonl every one', () => {
  const total = STATE_HISTORY_ENTRIES + 30;
  const iterationsIn = (dir: string) =>
    readJsonl(sessionPaths(dir).history, historyEntrySchema).map((e) => e.iteration);
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('appends each turn once and sums the ones that leave state.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
    // each projection carries the newest four entries, as the workflow's do
    for (let n = 1; n <= total; n++) {
      expect(await writeFlush(flushOf(dir, upTo(n).slice(-4)))).toEqual({ historyGap: false });
    }
    expect(iterationsIn(dir)).toEqual(upTo(total));
    const state = stateOf(dir);
    expect(state.history.map((e) => e.iteration)).toEqual(upTo(total).slice(-STATE_HISTORY_ENTRIES));
    expect(state.earlier_history).toEqual({ through: 30, ok: 30, failed: 0, unpriced_models: [] });
    // deleted: rebuilt from history.jsonl, with nothing missing
    rmSync(sessionPaths(dir).state);
    expect(await writeFlush(flushOf(dir, [total - 2, total - 1, total, total + 1]))).toEqual({
      historyGap: false,
    });
    expect(stateOf(dir).earlier_history).toEqual({ through: 31, ok: 31, failed: 0, unpriced_models: [] });
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves the history of a state.json written before history.jsonl into it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopy-flush-'));
    const legacy = newSessionState('s1', '2026-11-30T09:00:00.000Z');
    legacy.history = upTo(total).map((n) => historyEntry(n, { success: n % 2 === 0 }));
    writeFileSync(sessionPaths(dir).state, JSON.stringify(legacy));
    await writeFlush(flushOf(dir, [total - 1, total, total + 1]));
    expect(iterationsIn(dir)).toEqual(upTo(total + 1));
    const state = stateOf(dir);
    expect(state.history).toHaveLength(STATE_HISTORY_ENTRIES);
    expect(state.earlier_history).toEqual({ through: 31, ok: 15, failed: 16, unpriced_models: [] });
    rmSync(dir, { recursive: true, force: true });
  });
});
