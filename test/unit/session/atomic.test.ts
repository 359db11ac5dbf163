import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  appendLine,
  appendLinesDurably,
  namingFile,
  writeFileAtomic,
  writeFilesAtomic,
} from '../../../src/session/atomic';

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

test('appendLine appends whole lines and refuses embedded newlines', () => {
  const file = path.join(dir, 'sub', 'e.jsonl');
  appendLine(file, '{"n":1}');
  appendLine(file, '{"n":2}');
  expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  expect(() => appendLine(file, 'a\nb')).toThrow(/newline/);
});

test('writeFilesAtomic writes a batch in place, durable or not, and leaves no temp files', async () => {
  const batch = path.join(dir, 'batch');
  await writeFilesAtomic([
    { file: path.join(batch, 'a.json'), data: '{"a":1}\n' },
    { file: path.join(batch, 'b.txt'), data: 'b', fsync: false },
    { file: path.join(batch, 'sub', 'c.json'), data: '{}\n' },
  ]);
  expect(fs.readFileSync(path.join(batch, 'a.json'), 'utf8')).toBe('{"a":1}\n');
  expect(fs.readFileSync(path.join(batch, 'b.txt'), 'utf8')).toBe('b');
  expect(fs.readFileSync(path.join(batch, 'sub', 'c.json'), 'utf8')).toBe('{}\n');
  expect(fs.readdirSync(batch).sort()).toEqual(['a.json', 'b.txt', 'sub']);
});

test('writeFilesAtomic: a failed rename keeps what was renamed before it and removes the rest', async () => {
  const batch = path.join(dir, 'batch-fail');
  fs.mkdirSync(path.join(batch, 'taken', 'inside'), { recursive: true });
  // Renaming a file over a non-empty directory fails (EISDIR/ENOTEMPTY).
  await expect(
    writeFilesAtomic([
      { file: path.join(batch, 'first.json'), data: '1' },
      { file: path.join(batch, 'taken'), data: '2' },
      { file: path.join(batch, 'third.json'), data: '3' },
    ]),
  ).rejects.toThrow();
  expect(fs.readdirSync(batch).sort()).toEqual(['first.json', 'taken']);
});

test('appendLinesDurably: the lines are in the file at once, and on disk when it resolves', async () => {
  const file = path.join(dir, 'durable.jsonl');
  const done = appendLinesDurably(file, ['{"n":1}', '{"n":2}']);
  expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  await done;
  await appendLinesDurably(file, []);
  expect(() => appendLinesDurably(file, ['a\nb'])).toThrow(/newline/);
});

test('a write error without a path (a write through a descriptor) is given the file it was for', () => {
  const unnamed: NodeJS.ErrnoException = Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
  });
  expect(namingFile(unnamed, '/s/state.json')).toBe(unnamed);
  expect(unnamed.path).toBe('/s/state.json');
  const named: NodeJS.ErrnoException = Object.assign(new Error('EROFS'), { code: 'EROFS', path: '/s/x' });
  expect((namingFile(named, '/s/state.json') as NodeJS.ErrnoException).path).toBe('/s/x');
  const plain = new Error('plain');
  expect((namingFile(plain, '/s/state.json') as NodeJS.ErrnoException).path).toBeUndefined();
});
