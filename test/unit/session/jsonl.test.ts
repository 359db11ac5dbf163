import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

import {
  followJsonl,
  nextPollMs,
  readJsonl,
  readLastJsonl,
  readLastJsonlWith,
  readTailJsonl,
} from '../../../src/session/jsonl';
import { waitFor } from '../../support/wait';

const schema = z.object({ seq: z.number() });
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonl-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('readJsonl tolerates a torn last line, invalid lines and duplicates', () => {
  const file = path.join(dir, 'e.jsonl');
  fs.writeFileSync(file, '{"seq":1}\n{"seq":1}\nnot json\n{"seq":"x"}\n\n{"seq":2}\n{"seq":3,"tr');
  expect(readJsonl(file, schema)).toEqual([{ seq: 1 }, { seq: 1 }, { seq: 2 }]);
  expect(readJsonl(path.join(dir, 'missing.jsonl'), schema)).toEqual([]);
});

test('readLastJsonl finds the last valid record from the end, across chunk boundaries', () => {
  const file = path.join(dir, 'e.jsonl');
  expect(readLastJsonl(file, schema)).toBeUndefined();
  fs.writeFileSync(file, '{"seq":1}\n{"seq":2}\n{"seq":3,"tr');
  expect(readLastJsonl(file, schema)).toEqual({ seq: 2 });
  // A last valid line far from the end: the reader goes back chunk by chunk, never taking a cut line for a whole one.
  const padding = `{"pad":"${'x'.repeat(100 * 1024)}"}\n`;
  fs.writeFileSync(file, `{"seq":7}\n{"seq":8}\n${padding}${padding}not json\n`);
  expect(readLastJsonl(file, schema)).toEqual({ seq: 8 });
  fs.writeFileSync(file, 'garbage\n');
  expect(readLastJsonl(file, schema)).toBeUndefined();
});

test('followJsonl waits for the file, buffers partial lines and stops on abort', async () => {
  const file = path.join(dir, 'later.jsonl');
  const seen: number[] = [];
  const controller = new AbortController();
  const done = followJsonl(file, (r) => seen.push(r.seq), { schema, signal: controller.signal, pollMs: 10 });
  await delay(40);
  fs.writeFileSync(file, '{"seq":1}\n{"se');
  await waitFor('the first record', () => seen.length === 1);
  fs.appendFileSync(file, 'q":2}\nbad\n');
  await waitFor('the second record', () => seen.length === 2);
  controller.abort();
  await done;
  expect(seen).toEqual([1, 2]);
});

test('followJsonl with fromStart=false reports only new records', async () => {
  const file = path.join(dir, 'e.jsonl');
  fs.writeFileSync(file, '{"seq":1}\n');
  const seen: unknown[] = [];
  const controller = new AbortController();
  const done = followJsonl(file, (r) => seen.push(r), {
    signal: controller.signal,
    pollMs: 10,
    fromStart: false,
  });
  await delay(40);
  fs.appendFileSync(file, '{"seq":2}\n');
  await waitFor('the appended record', () => seen.length === 1);
  controller.abort();
  await done;
  expect(seen).toEqual([{ seq: 2 }]);
});

test('a follower looks less often while the file stays the same, and at once again when it grows', () => {
  const waits = [250];
  for (let i = 0; i < 6; i++) waits.push(nextPollMs(waits.at(-1) ?? 0, false, 250, 4000));
  expect(waits).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
  expect(nextPollMs(4000, true, 250, 4000)).toBe(250);
  // without a maximum above it, the interval is fixed
  expect(nextPollMs(100, false, 100, 100)).toBe(100);
});

test('a follower that backed off still reports what is appended after a quiet stretch', async () => {
  const file = path.join(dir, 'quiet.jsonl');
  fs.writeFileSync(file, '{"seq":1}\n');
  const seen: number[] = [];
  const controller = new AbortController();
  const done = followJsonl(file, (r) => seen.push(r.seq), {
    schema,
    signal: controller.signal,
    pollMs: 5,
    maxPollMs: 40,
  });
  await waitFor('the first record', () => seen.length === 1);
  await delay(200); // quiet: the follower is at its longest interval now
  fs.appendFileSync(file, '{"seq":2}\n');
  await waitFor('the record appended after the quiet stretch', () => seen.length === 2);
  controller.abort();
  await done;
  expect(seen).toEqual([1, 2]);
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

test('readTailJsonl returns the newest records in file order, and where a follower goes on', () => {
  const file = path.join(dir, 'e.jsonl');
  expect(readTailJsonl(file, schema, 3)).toEqual({ records: [], end: 0 });
  // enough lines to span several chunks, then a torn last line
  const lines = Array.from({ length: 20_000 }, (_, i) => `{"seq":${i + 1}}\n`).join('');
  fs.writeFileSync(file, `${lines}{"seq":20001,"tr`);
  const tail = readTailJsonl(file, schema, 3);
  expect(tail.records).toEqual([{ seq: 19_998 }, { seq: 19_999 }, { seq: 20_000 }]);
  expect(tail.end).toBe(Buffer.byteLength(lines));
  expect(readTailJsonl(file, schema, 30_000).records).toHaveLength(20_000);
});

test('readLastJsonlWith parses only the lines holding the marker, the last one that passes first', () => {
  const file = path.join(dir, 'e.jsonl');
  const typed = z.object({ seq: z.number(), type: z.string() });
  const marker = '"type":"reset"';
  expect(readLastJsonlWith(file, typed, marker, () => true)).toBeUndefined();
  fs.writeFileSync(
    file,
    [
      '{"seq":1,"type":"reset"}',
      '{"seq":2,"type":"other","note":"\\"type\\":\\"reset\\""}',
      '{"seq":3,"type":"reset"}',
      '{"seq":"bad","type":"reset"}',
      '{"seq":5,"type":"other"}',
      '{"seq":6,"type":"reset","tr',
    ].join('\n'),
  );
  expect(readLastJsonlWith(file, typed, marker, (r) => r.type === 'reset')).toEqual({
    seq: 3,
    type: 'reset',
  });
  expect(readLastJsonlWith(file, typed, marker, (r) => r.seq < 3)).toEqual({ seq: 1, type: 'reset' });
  expect(readLastJsonlWith(file, typed, '"type":"none"', () => true)).toBeUndefined();
});
