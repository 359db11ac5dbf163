import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { usageError } from '../errors';
import { SIZE_LIMITS } from '../session/limits';

/**
 * The most each kind of input file may hold. A file over its cap is refused unread: without one, `--config
 * /dev/zero` grew the CLI to gigabytes before anything was checked.
 */
export const INPUT_FILE_LIMITS = {
  /** the-loop.yaml, a process graph, a --workflows file: a few KiB in practice; 1 MiB leaves room for inline prompts. */
  config: 1024 * 1024,
  /** --goal-file: the goal's own limit, since a goal over it is refused anyway. */
  goal: SIZE_LIMITS.goalBytes,
  /** --body-file: GitHub takes at most 65,536 characters of body, which are at most 256 KiB of UTF-8. */
  body: 256 * 1024,
} as const;

export interface InputFile {
  /** Where the path came from, named in every refusal: `--goal-file`, `THE_LOOP_CONFIG`, `process.file`. */
  flag: string;
  /** The path as the user gave it, `-` for stdin where the flag allows it. */
  path: string;
  /** The path to open, when `path` is relative to another directory than the process's. */
  resolved?: string;
  maxBytes: number;
  /** May `-` stand for stdin? */
  stdin?: boolean;
}

/**
 * Reads a file the user named: a regular file of at most `maxBytes`, or the flag's one-line usage error (exit 2)
 * saying what is wrong and what to do. Nothing is read from a FIFO, a device, a directory or a socket, and a
 * /proc or /sys file (whose size the kernel reports as 0 or 4096, whatever it holds) is refused too.
 */
export function readInputFile(input: InputFile): string {
  if (input.stdin && input.path === '-') return readStdin(input);
  const refuse = (problem: string) => usageError(`${input.flag} ${input.path}: ${problem}`);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer; the type is checked on the open fd, so
    // no rename between a stat and the open can slip a device in.
    fd = openSync(
      input.resolved ?? input.path,
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY,
    );
  } catch (error) {
    throw refuse(openProblem(error as NodeJS.ErrnoException));
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw refuse(`${kindOf(stats)}, not a regular file: pass a regular file (save the text to one first)`);
    if (stats.size > input.maxBytes)
      throw refuse(`the file is ${stats.size} bytes; the limit is ${input.maxBytes}: shorten it`);
    // One byte more than the file claims to hold: a pseudo-file that holds more than its size shows up at once.
    const buffer = Buffer.alloc(stats.size + 1);
    const length = readUpTo(fd, buffer);
    if (length !== stats.size)
      throw refuse(
        `its size says ${stats.size} bytes but it holds ${length > stats.size ? 'more' : 'fewer'} (a /proc or /sys file, or one being written): copy it into a regular file and pass that`,
      );
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** stdin (`--body-file -`) is a pipe or a terminal as often as a file: only its size is bounded. */
function readStdin(input: InputFile): string {
  const buffer = Buffer.alloc(input.maxBytes + 1);
  const length = readUpTo(0, buffer);
  if (length > input.maxBytes)
    throw usageError(`${input.flag} -: stdin holds more than ${input.maxBytes} bytes, the limit: shorten it`);
  return buffer.toString('utf8', 0, length);
}

/** Reads until end of file or a full buffer; returns how many bytes it read. */
function readUpTo(fd: number, buffer: Buffer): number {
  let length = 0;
  while (length < buffer.length) {
    let n: number;
    try {
      n = readSync(fd, buffer, length, buffer.length - length, null);
    } catch (error) {
      // A non-blocking stdin (a terminal some shells leave so) has nothing yet: wait a moment rather than spin.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      continue;
    }
    if (n === 0) break;
    length += n;
  }
  return length;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'a special file';
}

function openProblem(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: pass a file you can read';
    case 'ENOTDIR':
      return 'no such file (a part of the path is not a directory)';
    case 'ENXIO':
      return 'a socket or a device without a reader, not a regular file: pass a regular file';
    default:
      return `cannot open it (${error.code ?? 'error'})`;
  }
}
