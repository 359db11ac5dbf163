import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFlush } from '../../../src/activities/session-files';
import { readJsonl } from '../../../src/session/jsonl';
import { sessionPaths } from '../../../src/session/paths';
import { sessionEventSchema, sessionStateFileSchema } from '../../../src/session/schemas';
import { newSessionState } from '../../../src/workflows/goal-session-bookkeeping';
import type { Flush } from '../../../src/workflows/goal-session-types';

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

  it('replaces a state.json written before projections were numbered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flush-'));
    await writeFlush(flush(dir, undefined));
    await writeFlush(flush(dir, 1));
    expect(stateOf(dir).projection).toBe(1);
  });
});
