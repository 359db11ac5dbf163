import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { z } from 'zod';

export interface WriteOptions {
  /**
   * false: atomic (temp file, rename) but not forced to disk. For records that only need to survive the writing
   * process dying (the page cache outlives it), not the machine: prompt.txt, harness_run_id.txt, process.json.
   */
  fsync?: boolean;
}

/** Readers of the session directory never see a half-written file: temp file, fsync, rename. */
export function writeFileAtomic(file: string, data: string | Buffer, options: WriteOptions = {}): void {
  const durable = options.fsync ?? true;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    fs.writeFileSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
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

/** Validates first so that an invalid value never replaces a valid file. */
export function writeJsonAtomic<S extends z.ZodType>(
  file: string,
  schema: S,
  value: z.input<S>,
  options: WriteOptions = {},
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`refusing to write ${file}: ${describeZodError(parsed.error)}`);
  writeFileAtomic(file, `${JSON.stringify(parsed.data, null, 2)}\n`, options);
  return parsed.data;
}

export function readJsonFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  const text = fs.readFileSync(file, 'utf8');
  return parseJsonText(file, text, schema);
}

export function readJsonIfExists<S extends z.ZodType>(file: string, schema: S): z.output<S> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
  return parseJsonText(file, text, schema);
}

export function parseJsonText<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/** One line per problem would be noisy in a CLI; the first issue with its path is what a person fixes first. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid value';
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${where}: ${issue.message}${more}`;
}

/** One write() with O_APPEND keeps concurrent appenders from interleaving inside a line. */
export function appendLine(file: string, line: string): void {
  appendLines(file, [line]);
}

/** Several lines in one write() and one fsync; each still whole (O_APPEND). */
export function appendLines(file: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  for (const line of lines) {
    if (line.includes('\n')) throw new Error(`appendLine: line for ${file} contains a newline`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
  try {
    fs.writeSync(fd, lines.map((line) => `${line}\n`).join(''));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
