import * as fs from 'node:fs';

import type { z } from 'zod';

import { isErrno } from '../errors';
import { writeFileAtomic, type WriteOptions } from './atomic';

/** Validates first so that an invalid value never replaces a valid file. */
export function writeJsonAtomic<S extends z.ZodType>(
  file: string,
  schema: S,
  value: z.input<S>,
  options: WriteOptions = {},
): z.output<S> {
  const { data, text } = jsonFileText(file, schema, value);
  writeFileAtomic(file, text, options);
  return data;
}

/** A file format's text for a value, validated first: what writeJsonAtomic writes (and writeFilesAtomic batches). */
export function jsonFileText<S extends z.ZodType>(
  file: string,
  schema: S,
  value: z.input<S>,
): { data: z.output<S>; text: string } {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`refusing to write ${file}: ${describeZodError(parsed.error)}`);
  return { data: parsed.data, text: `${JSON.stringify(parsed.data, null, 2)}\n` };
}

export function readJsonFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  return parseJsonText(file, fs.readFileSync(file, 'utf8'), schema);
}

/** As readJsonFile; null when the file does not exist (any other problem still throws). */
export function readJsonIfExists<S extends z.ZodType>(file: string, schema: S): z.output<S> | null {
  try {
    return readJsonFile(file, schema);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
}

function parseJsonText<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
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
