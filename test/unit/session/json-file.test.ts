import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

import { readJsonFile, readJsonIfExists, writeJsonAtomic } from '../../../src/session/json-file';
import { controlFileSchema } from '../../../src/session/schemas';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'json-file-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('writeJsonAtomic validates before writing and keeps the old file on invalid input', () => {
  const file = path.join(dir, 'control.json');
  writeJsonAtomic(file, controlFileSchema, { state: 'running' });
  expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "state": "running",\n  "reason": null\n}\n');
  expect(() => writeJsonAtomic(file, controlFileSchema, { state: 'paused' } as never)).toThrow(/state/);
  expect(readJsonFile(file, controlFileSchema).state).toBe('running');
});

test('readJsonFile names the file and the failing field', () => {
  const file = path.join(dir, 'bad.json');
  fs.writeFileSync(file, '{"state":"running","reason":5}');
  expect(() => readJsonFile(file, controlFileSchema)).toThrow(`${file}: reason:`);
  fs.writeFileSync(file, '{"state":');
  expect(() => readJsonFile(file, controlFileSchema)).toThrow(`${file}: invalid JSON`);
});

test('readJsonIfExists returns null only for a missing file', () => {
  const schema = z.object({ a: z.number() });
  expect(readJsonIfExists(path.join(dir, 'nope.json'), schema)).toBeNull();
  fs.writeFileSync(path.join(dir, 'yes.json'), '{"a":1}');
  expect(readJsonIfExists(path.join(dir, 'yes.json'), schema)).toEqual({ a: 1 });
});
