import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { listCacheFormat, readThroughListCache } from '../../../src/session/list-cache';

const record = z.object({ n: z.number() });
const format = listCacheFormat('test/1', record);

/** Records of `{"n": …}`, each written as a worker writes (temp file, rename), listed as `at` a time (ms from now). */
function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'list-cache-'));
  const cacheFile = join(dir, '.cache.json');
  const reads: string[] = [];
  const write = (name: string, n: number) => {
    const file = join(dir, name);
    writeFileSync(`${file}.tmp`, JSON.stringify({ n }));
    renameSync(`${file}.tmp`, file);
  };
  // a minute on by default: every record is settled
  const list = (names: string[], at = 60_000) =>
    readThroughListCache(
      format,
      cacheFile,
      names.map((name) => ({ name, file: join(dir, name) })),
      (name) => {
        reads.push(name);
        return record.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
      },
      Date.now() + at,
    );
  return { dir, cacheFile, reads, write, list };
}

describe('readThroughListCache', () => {
  it('reads a record once, then serves it from the cache while its file is the same', () => {
    const f = fixture();
    f.write('a', 1);
    f.write('b', 2);
    expect(f.list(['a', 'b'])).toEqual([
      { name: 'a', value: { n: 1 } },
      { name: 'b', value: { n: 2 } },
    ]);
    expect(f.list(['a', 'b'])).toEqual([
      { name: 'a', value: { n: 1 } },
      { name: 'b', value: { n: 2 } },
    ]);
    expect(f.reads).toEqual(['a', 'b']);
  });

  it('reads a record again once its file has changed, and forgets records that are gone', () => {
    const f = fixture();
    f.write('a', 1);
    f.write('b', 2);
    f.list(['a', 'b']);
    f.write('a', 10);
    expect(f.list(['a'])).toEqual([{ name: 'a', value: { n: 10 } }]);
    expect(f.reads).toEqual(['a', 'b', 'a']);
    const kept = JSON.parse(readFileSync(f.cacheFile, 'utf8')) as { entries: object };
    expect(Object.keys(kept.entries)).toEqual(['a']);
  });

  it('never keeps a record changed in the last two seconds: a second write in the same clock tick could hide', () => {
    const f = fixture();
    f.write('live', 1);
    f.list(['live'], 0);
    f.list(['live'], 0);
    expect(f.reads).toEqual(['live', 'live']);
  });

  it('returns what a read throws for that record alone, and reads it again next time', () => {
    const f = fixture();
    f.write('a', 1);
    writeFileSync(join(f.dir, 'torn'), '{');
    const first = f.list(['a', 'torn']);
    expect(first[0]).toEqual({ name: 'a', value: { n: 1 } });
    expect(first[1]?.error).toBeInstanceOf(SyntaxError);
    f.list(['a', 'torn']);
    expect(f.reads).toEqual(['a', 'torn', 'torn']);
  });

  it('ignores a torn cache, or one of another format, and rewrites it', () => {
    const f = fixture();
    f.write('a', 1);
    writeFileSync(f.cacheFile, '{"format":');
    expect(f.list(['a'])).toEqual([{ name: 'a', value: { n: 1 } }]);
    writeFileSync(
      f.cacheFile,
      JSON.stringify({ format: 'test/0', entries: { a: { stamp: 'x', value: { n: 1 } } } }),
    );
    expect(f.list(['a'])).toEqual([{ name: 'a', value: { n: 1 } }]);
    expect(f.list(['a'])).toEqual([{ name: 'a', value: { n: 1 } }]);
    expect(f.reads).toEqual(['a', 'a']);
  });

  it('still lists when the cache cannot be written', () => {
    const f = fixture();
    f.write('a', 1);
    // a file where the cache's directory would be: every write of the cache fails
    const blocked = join(f.dir, 'blocked');
    writeFileSync(blocked, '');
    const listed = () =>
      readThroughListCache(
        format,
        join(blocked, '.cache.json'),
        [{ name: 'a', file: join(f.dir, 'a') }],
        () => ({ n: 1 }),
      );
    expect(listed()).toEqual([{ name: 'a', value: { n: 1 } }]);
    expect(listed()).toEqual([{ name: 'a', value: { n: 1 } }]);
    rmSync(f.dir, { recursive: true });
  });
});
