import type { Document, LineCounter } from 'yaml';
import type { z } from 'zod';
import { errorLine } from '../errors';

/** One line: `<file>:<line>: <field>: <message>` for the first problem found. */
export class FileFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string | null,
    readonly problem: string,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'FileFormatError';
  }
}

function lineOfPath(doc: Document, counter: LineCounter, path: readonly PropertyKey[]): number | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by parseYamlWithSchema already
  const { isNode } = require('yaml') as typeof import('yaml');
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as unknown[], true);
    if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
  }
  return null;
}

/** Parses YAML text and validates it; errors name the file, the line and the field. */
export function parseYamlWithSchema<S extends z.ZodType>(file: string, text: string, schema: S): z.infer<S> {
  // Loaded on the first parse: a command without a config file never pays for the YAML parser (about 40 ms).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { LineCounter, parseDocument } = require('yaml') as typeof import('yaml');
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const line = firstError.linePos?.[0]?.line ?? null;
    throw new FileFormatError(file, line, null, `invalid YAML: ${errorLine(firstError)}`);
  }
  const data: unknown = doc.toJS() ?? {};
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const field = path.length > 0 ? path.map(String).join('.') : null;
  let message = issue?.message ?? 'invalid';
  if (issue?.code === 'unrecognized_keys') {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    message = `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k}'`).join(', ')}`;
    const keyPath = keys[0] !== undefined ? [...path, keys[0]] : path;
    return throwAt(file, lineOfPath(doc, counter, keyPath), keyPath.map(String).join('.') || null, message);
  }
  return throwAt(file, lineOfPath(doc, counter, path), field, message);
}

function throwAt(file: string, line: number | null, field: string | null, message: string): never {
  throw new FileFormatError(file, line, field, message);
}
