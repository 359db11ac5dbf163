import * as fs from 'node:fs';

import { z } from 'zod';

import { isErrno } from '../errors';

/**
 * Reads every valid record. A torn final line (a writer died mid-append) and lines that fail the schema
 * are skipped rather than fatal, and duplicates are kept: the stream is best-effort by contract.
 */
export function readJsonl<S extends z.ZodType>(file: string, schema: S): z.output<S>[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
  const records: z.output<S>[] = [];
  for (const line of text.split('\n')) {
    const record = parseLine(line, schema);
    if (record !== undefined) records.push(record);
  }
  return records;
}

/** The last valid record, read from the end of the file in chunks: the cost does not grow with the file. */
export function readLastJsonl<S extends z.ZodType>(file: string, schema: S): z.output<S> | undefined {
  return readTailJsonl(file, schema, 1).records[0];
}

/**
 * The last `count` valid records, in file order, read from the end of the file in chunks: the cost grows with
 * `count`, not with the file. `end`: the offset just past the last whole line, where a reader that follows the
 * file goes on (a torn last line is read again once its writer finishes it).
 */
export function readTailJsonl<S extends z.ZodType>(
  file: string,
  schema: S,
  count: number,
): { records: z.output<S>[]; end: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { records: [], end: 0 };
    throw err;
  }
  try {
    const chunk = 64 * 1024;
    const size = fs.fstatSync(fd).size;
    let end = size;
    let tail = Buffer.alloc(0);
    let wholeLinesEnd: number | null = null;
    const records: z.output<S>[] = [];
    while (end > 0 && records.length < count) {
      const start = Math.max(0, end - chunk);
      const read = Buffer.alloc(end - start);
      fs.readSync(fd, read, 0, read.length, start);
      tail = Buffer.concat([read, tail]);
      end = start;
      const lastNewline = tail.lastIndexOf(0x0a);
      if (wholeLinesEnd === null && lastNewline !== -1) wholeLinesEnd = start + lastNewline + 1;
      // Only whole lines: the first one in the buffer may begin before it, unless the file begins there.
      const lines = tail.toString('utf8').split('\n');
      const first = start === 0 ? 0 : 1;
      for (let i = lines.length - 1; i >= first && records.length < count; i--) {
        const record = parseLine(lines[i] ?? '', schema);
        if (record !== undefined) records.push(record);
      }
      // The line the chunk began inside is all the next chunk needs of this one.
      tail = Buffer.from(lines[0] ?? '', 'utf8');
    }
    return { records: records.reverse(), end: wholeLinesEnd ?? 0 };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The last valid record whose line holds `marker` (a fragment of JSON as the writer's JSON.stringify spells it, such
 * as `"type":"x"`) and that `accept` takes: a byte search from the end of the file, so that only the lines that
 * hold the marker are parsed, not every line of a file that grows with the session.
 */
export function readLastJsonlWith<S extends z.ZodType>(
  file: string,
  schema: S,
  marker: string,
  accept: (record: z.output<S>) => boolean,
): z.output<S> | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
  const needle = Buffer.from(marker, 'utf8');
  let before = data.length;
  while (before > 0) {
    const at = data.lastIndexOf(needle, before - 1);
    if (at === -1) return undefined;
    const start = data.lastIndexOf(0x0a, at) + 1;
    const newline = data.indexOf(0x0a, at);
    const record = parseLine(
      data.subarray(start, newline === -1 ? data.length : newline).toString('utf8'),
      schema,
    );
    if (record !== undefined && accept(record)) return record;
    before = start;
  }
  return undefined;
}

function parseLine<S extends z.ZodType>(line: string, schema: S): z.output<S> | undefined {
  const trimmed = line.trim();
  if (trimmed === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export interface FollowOptions<S extends z.ZodType> {
  signal: AbortSignal;
  /** Records failing it are skipped; without it every JSON line is reported as `unknown`. */
  schema?: S;
  pollMs?: number;
  /**
   * While the file does not grow, the interval doubles up to this (default: pollMs, a fixed interval); any growth
   * brings it back to pollMs. For a watch kept on many quiet files at once, whose stat calls would add up.
   */
  maxPollMs?: number;
  /** For this long after the follow starts, the interval stays pollMs whether or not the file grows (default 0). */
  backOffAfterMs?: number;
  /** false: skip what the file holds now and report only later appends. */
  fromStart?: boolean;
  /** Where to start reading (default 0): the end of what the caller has already read (readTailJsonl's `end`). */
  fromOffset?: number;
}

/**
 * Tails a JSONL file that may not exist yet. Polling (not fs.watch) because it behaves the same on every
 * filesystem; a partial last line waits in the buffer until its newline arrives. Resolves when aborted.
 */
export async function followJsonl<S extends z.ZodType = z.ZodUnknown>(
  file: string,
  onRecord: (record: z.output<S>) => void,
  options: FollowOptions<S>,
): Promise<void> {
  const schema: z.ZodType = options.schema ?? z.unknown();
  const pollMs = options.pollMs ?? 100;
  const maxPollMs = Math.max(pollMs, options.maxPollMs ?? pollMs);
  let offset = options.fromOffset ?? 0;
  let pending = Buffer.alloc(0);
  let started = false;
  const { signal } = options;

  /** Reads what was appended since the last poll: whether there was anything. */
  const poll = (): boolean => {
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) {
        started = true;
        return false;
      }
      throw err;
    }
    if (!started) {
      started = true;
      if (options.fromStart === false) {
        offset = size;
        return false;
      }
    }
    // A shrunken file was replaced or truncated: start over rather than read garbage.
    if (size < offset) {
      offset = 0;
      pending = Buffer.alloc(0);
    }
    if (size === offset) return false;
    const chunk = readRange(file, offset, size - offset);
    offset += chunk.length;
    pending = Buffer.concat([pending, chunk]);
    let newline = pending.indexOf(0x0a);
    while (newline !== -1 && !signal.aborted) {
      const line = pending.subarray(0, newline).toString('utf8');
      pending = pending.subarray(newline + 1);
      const record: unknown = parseLine(line, schema);
      if (record !== undefined) onRecord(record as z.output<S>);
      newline = pending.indexOf(0x0a);
    }
    return true;
  };

  const backOffFrom = Date.now() + (options.backOffAfterMs ?? 0);
  let waitMs = pollMs;
  while (!signal.aborted) {
    const grew = poll();
    waitMs = nextPollMs(waitMs, grew || Date.now() < backOffFrom, pollMs, maxPollMs);
    await sleep(waitMs, signal);
  }
}

/** A follower's next wait: pollMs while it stays quick (the file grew, or it is early), else twice the last, up to maxPollMs. */
export function nextPollMs(lastMs: number, quick: boolean, pollMs: number, maxPollMs: number): number {
  return quick ? pollMs : Math.min(maxPollMs, lastMs * 2);
}

function readRange(file: string, start: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    const read = fs.readSync(fd, buffer, 0, length, start);
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
