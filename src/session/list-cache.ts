import { statSync } from 'node:fs';
import { z } from 'zod';
import { stampOf } from './file-stamp';
import { writeFileAtomic } from './atomic';
import { readJsonIfExists } from './json-file';

/**
 * A record changed this recently is read but not kept: file times move by the kernel's clock tick, so a second write
 * within one tick could keep the first one's stamp (git's "racily clean" entries). Its change time tells, which only
 * the kernel sets. Live sessions, whose state.json changes every turn, are read each time; the rest come from the
 * cache.
 */
const SETTLED_AFTER_MS = 2000;

type Entries<T> = Record<string, { stamp: string; value: T }>;

/** The cache file: per record, the stamp of the file it was made from, and what a list shows of it. */
function listCacheSchema<T>(
  format: string,
  value: z.ZodType<T>,
): z.ZodType<{ format: string; entries: Entries<T> }> {
  // compiled (zod's generated fast path): a cold run validated 1,000 entries in 37 ms, now in 7
  return z.compile(
    z.object({
      format: z.literal(format),
      entries: z.record(z.string(), z.object({ stamp: z.string(), value })),
    }),
  ) as z.ZodType<{ format: string; entries: Entries<T> }>;
}

export interface ListEntry<T> {
  name: string;
  /** What `read` returned, from the cache when the record's file has not changed since. */
  value?: T;
  /** What `read` threw: never kept, so the next list reads the record again. */
  error?: unknown;
}

/** A list cache's format: its name, and the schema of its file. */
export interface ListCacheFormat<T> {
  /** Names the projection's shape: a cache written for another one is ignored. */
  name: string;
  schema: z.ZodType<{ format: string; entries: Entries<T> }>;
}

/**
 * Made once, at a module's top level: the CLI's start-up snapshot then holds the schema with the parser zod generated
 * for it when the snapshot's build ran the commands once, where a schema made per list is generated again each run.
 */
export function listCacheFormat<T>(name: string, value: z.ZodType<T>): ListCacheFormat<T> {
  return { name, schema: listCacheSchema(name, value) };
}

/**
 * What a list shows of each of many records, read through one cache file of it. A list of 1,000 goal sessions read
 * and validated 1,000 state.json files of several KB: in a CPU profile, reading them, JSON.parse and the garbage
 * they left were most of `loopy list`'s and `inbox`'s time. Through the cache it stats each record's file and reads
 * one file. `records` name the files whose stamps key the entries; `read` makes an entry from the record itself.
 *
 * The cache is only ever a shortcut: unreadable, of another format, or unwritable (a directory the user may read but
 * not write), it is ignored, and the records are read.
 */
export function readThroughListCache<T>(
  format: ListCacheFormat<T>,
  /** The cache's own file, beside the records it describes. */
  cacheFile: string,
  records: readonly { name: string; file: string }[],
  read: (name: string) => T,
  now = Date.now(),
): ListEntry<T>[] {
  const { schema } = format;
  let kept: Entries<T> = {};
  try {
    kept = readJsonIfExists(cacheFile, schema)?.entries ?? {};
  } catch {
    // torn, hand-edited or another format: rebuilt below
  }
  const entries: Entries<T> = {};
  let added = false;
  const settledBefore = now - SETTLED_AFTER_MS;
  const listed = records.map(({ name, file }): ListEntry<T> => {
    let stamp: string | null = null;
    try {
      const st = statSync(file);
      if (st.ctimeMs < settledBefore) stamp = stampOf(st);
    } catch {
      // absent: `read` says what that means
    }
    const hit = stamp === null ? undefined : kept[name];
    if (hit && hit.stamp === stamp) {
      entries[name] = hit;
      return { name, value: hit.value };
    }
    try {
      const value = read(name);
      if (stamp !== null) {
        entries[name] = { stamp, value };
        added = true;
      }
      return { name, value };
    } catch (error) {
      return { name, error };
    }
  });
  // rewritten when it gained an entry or lost one (a record gone, changed, or changed too recently to keep)
  if (added || Object.keys(kept).some((name) => !Object.hasOwn(entries, name))) {
    try {
      // one line, not the indented JSON of the files people read: a quarter of the size to read back
      const text = JSON.stringify(schema.parse({ format: format.name, entries }));
      writeFileAtomic(cacheFile, text, { fsync: false });
    } catch {
      // a shortcut not taken: the next list reads the records again
    }
  }
  return listed;
}
