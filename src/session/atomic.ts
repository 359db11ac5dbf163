import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface WriteOptions {
  /**
   * false: atomic (temp file, rename) but not forced to disk. For records that only need to survive the writing
   * process dying (the page cache outlives it), not the machine: prompt.txt, harness_run_id.txt, process.json.
   */
  fsync?: boolean;
}

/** A hidden temp file beside `file`, unique to this process and call: renamed over `file` once written. */
function tempPathFor(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
}

/**
 * A write through a file descriptor fails without naming its file (`ENOSPC: no space left on device, write`): the
 * error gets the file it was for, so that whoever reports the fault can say where.
 */
export function namingFile(error: unknown, file: string): unknown {
  const errno = error as NodeJS.ErrnoException | null;
  if (errno && typeof errno.code === 'string' && errno.path === undefined) errno.path = file;
  return error;
}

/** Readers of the session directory never see a half-written file: temp file, fsync, rename. */
export function writeFileAtomic(file: string, data: string | Buffer, options: WriteOptions = {}): void {
  const durable = options.fsync ?? true;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = tempPathFor(file);
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    fs.writeFileSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw namingFile(err, file);
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) fsyncDir(dir);
}

/** Makes the rename durable; some filesystems refuse to fsync a directory, which is not worth failing for. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** One write() with O_APPEND keeps concurrent appenders from interleaving inside a line. */
export function appendLine(file: string, line: string): void {
  appendLines(file, [line]);
}

/** Several lines in one write() and one fsync; each still whole (O_APPEND). */
function appendLines(file: string, lines: readonly string[]): void {
  const fd = appendWithoutSync(file, lines);
  if (fd === null) return;
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * appendLines whose fsync runs off the event loop: the lines are in the file (for every reader) when this returns,
 * and on disk when the promise resolves.
 */
export function appendLinesDurably(file: string, lines: readonly string[]): Promise<void> {
  const fd = appendWithoutSync(file, lines);
  if (fd === null) return Promise.resolve();
  return fsyncThenClose(fd);
}

function appendWithoutSync(file: string, lines: readonly string[]): number | null {
  if (lines.length === 0) return null;
  for (const line of lines) {
    if (line.includes('\n')) throw new Error(`appendLine: line for ${file} contains a newline`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
  try {
    fs.writeSync(fd, lines.map((line) => `${line}\n`).join(''));
  } catch (err) {
    fs.closeSync(fd);
    throw namingFile(err, file);
  }
  return fd;
}

function fsyncThenClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fsync(fd, (syncError) => {
      fs.close(fd, (closeError) => {
        const error = syncError ?? closeError;
        if (error) reject(error);
        else resolve();
      });
    });
  });
}

export interface FileWrite {
  file: string;
  data: string;
  /** Default true. */
  fsync?: boolean;
}

/**
 * Several atomic writes as one batch: every file's temp copy is written, the durable ones are fsynced together
 * (off the event loop, so that the filesystem can commit them at once), then renamed into place in the given
 * order, and their directories fsynced once each. A reader never sees a half-written file, and a crash leaves a
 * prefix of the renames. Two durable files cost about one fsync's wait instead of four.
 */
export async function writeFilesAtomic(writes: readonly FileWrite[]): Promise<void> {
  const staged: { tmp: string; file: string; fd: number; durable: boolean }[] = [];
  try {
    for (const write of writes) {
      fs.mkdirSync(path.dirname(write.file), { recursive: true });
      const tmp = tempPathFor(write.file);
      const fd = fs.openSync(tmp, 'w', 0o644);
      staged.push({ tmp, file: write.file, fd, durable: write.fsync ?? true });
      fs.writeFileSync(fd, write.data);
    }
    // allSettled: no fd may be closed while its fsync still runs.
    const synced = await Promise.allSettled(staged.filter((s) => s.durable).map((s) => fsyncFd(s.fd)));
    const failed = synced.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    for (const s of staged) {
      fs.closeSync(s.fd);
      fs.rmSync(s.tmp, { force: true });
    }
    const last = staged.at(-1);
    throw last ? namingFile(err, last.file) : err;
  }
  for (const s of staged) fs.closeSync(s.fd);
  for (const [i, s] of staged.entries()) {
    try {
      fs.renameSync(s.tmp, s.file);
    } catch (err) {
      for (const left of staged.slice(i)) fs.rmSync(left.tmp, { force: true });
      throw err;
    }
  }
  const dirs = new Set(staged.filter((s) => s.durable).map((s) => path.dirname(s.file)));
  await Promise.all([...dirs].map((dir) => fsyncDirAsync(dir)));
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/** As fsyncDir, off the event loop (makes renames durable; best effort where a filesystem refuses). */
export async function fsyncDirAsync(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort, as in fsyncDir
  } finally {
    await handle?.close();
  }
}
