import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { z } from 'zod';

import {
  appendLine,
  readJsonFile,
  readJsonIfExists,
  writeFileAtomic,
  writeJsonAtomic,
} from '../../../src/session/atomic';
import { controlFileSchema } from '../../../src/session/schemas';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('writeFileAtomic creates parent dirs and leaves no temp files', () => {
  const file = path.join(dir, 'a', 'b', 'x.txt');
  writeFileAtomic(file, 'one');
  writeFileAtomic(file, Buffer.from('two'));
  expect(fs.readFileSync(file, 'utf8')).toBe('two');
  expect(fs.readdirSync(path.dirname(file))).toEqual(['x.txt']);
});

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

test('appendLine appends whole lines and refuses embedded newlines', () => {
  const file = path.join(dir, 'sub', 'e.jsonl');
  appendLine(file, '{"n":1}');
  appendLine(file, '{"n":2}');
  expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  expect(() => appendLine(file, 'a\nb')).toThrow(/newline/);
});
