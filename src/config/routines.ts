import * as fs from 'node:fs';

import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { z } from 'zod';

import { harnessNameSchema } from '../session/schemas/common';
import { PROMPT_PLACEHOLDERS, unknownPlaceholders } from '../session/prompt';
import type { Routine, RoutineWhen } from '../session/routine-schedule';
import { errorLine } from '../errors';

export type { Routine };

const WHEN_KEYS = ['first', 'every', 'after', 'default'] as const;
const routineId = z
  .string()
  .regex(/^[a-z0-9_-]+$/, 'must match [a-z0-9_-]+ (lowercase letters, digits, _ and -)');

const whenSchema = z
  .strictObject({
    first: z.literal(true).optional(),
    every: z.number().int().min(1).optional(),
    after: routineId.optional(),
    default: z.literal(true).optional(),
  })
  .refine((w) => WHEN_KEYS.filter((k) => w[k] !== undefined).length === 1, {
    message: `needs exactly one of ${WHEN_KEYS.join(', ')}`,
  })
  .transform((w): RoutineWhen => {
    if (w.first) return { first: true };
    if (w.every !== undefined) return { every: w.every };
    if (w.after !== undefined) return { after: w.after };
    return { default: true };
  });

const promptSchema = z
  .string()
  .min(1)
  .superRefine((prompt, ctx) => {
    const unknown = unknownPlaceholders(prompt);
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown placeholder ${unknown.map((n) => `{${n}}`).join(', ')} (known: ${PROMPT_PLACEHOLDERS.join(', ')}; write {{ for a literal brace)`,
      });
    }
  });

const harnessOptionsSchema = z.strictObject({
  command: z.string().min(1).optional(),
  command_line: z.string().min(1).optional(),
  permission_mode: z.string().min(1).optional(),
  extra_args: z.array(z.string()).optional(),
  max_budget_usd: z.number().positive().optional(),
  conversation: z.enum(['fresh', 'continue']).optional(),
});

export const routineSchema = z.strictObject({
  id: routineId,
  prompt: promptSchema,
  harness: harnessNameSchema.optional(),
  harness_options: harnessOptionsSchema.default({}),
  emits_goal_check: z.boolean().default(false),
  when: whenSchema.default({ default: true }),
});

export const routinesFileSchema = z
  .strictObject({ workflows: z.array(routineSchema).min(1, 'needs at least one routine') })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    let firsts = 0;
    const defaults: number[] = [];
    file.workflows.forEach((routine, i) => {
      if (seen.has(routine.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['workflows', i, 'id'],
          message: `duplicate id '${routine.id}'`,
        });
      }
      seen.add(routine.id);
      if ('first' in routine.when && ++firsts > 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['workflows', i, 'when'],
          message: 'only one routine may have first: true',
        });
      }
      if ('default' in routine.when) defaults.push(i);
    });
    file.workflows.forEach((routine, i) => {
      if ('after' in routine.when && !seen.has(routine.when.after)) {
        ctx.addIssue({
          code: 'custom',
          path: ['workflows', i, 'when', 'after'],
          message: `no routine with id '${routine.when.after}'`,
        });
      }
    });
    if (defaults.length !== 1) {
      const second = defaults[1];
      ctx.addIssue({
        code: 'custom',
        path: second === undefined ? ['workflows'] : ['workflows', second, 'when'],
        message: `exactly one routine must have when: { default: true } (a routine without when is a default); found ${defaults.length}`,
      });
    }
  });

// Compile-time proof that what the loader returns is what the workflow's scheduler accepts.
const _routineCompatible = (r: z.output<typeof routineSchema>): Routine => r;
void _routineCompatible;

/** Parses a routines file; throws one line: `<file>:<line>:<col>: <field>: <problem>`. */
export function loadRoutinesFile(file: string): Routine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read workflows file: ${(err as Error).message}`, { cause: err });
  }
  return parseRoutinesYaml(text, file);
}

export function parseRoutinesYaml(text: string, file: string): Routine[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const pos = lineCounter.linePos(yamlError.pos[0]);
    const message = errorLine(yamlError).replace(/ at line \d+, column \d+:?$/, '');
    throw new Error(`${file}:${pos.line}:${pos.col}: invalid YAML: ${message}`);
  }
  const parsed = routinesFileSchema.safeParse(doc.toJS());
  if (parsed.success) return parsed.data.workflows;
  const issue = parsed.error.issues[0];
  if (!issue) throw new Error(`${file}: invalid workflows file`);
  let issuePath: PropertyKey[] = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    issuePath = [...issuePath, issue.keys[0]];
  }
  const pos = lineCounter.linePos(offsetOf(doc, issuePath));
  const field = formatPath(issuePath);
  const message =
    issue.code === 'invalid_type' && / received undefined$/.test(issue.message)
      ? 'is required'
      : issue.message;
  throw new Error(`${file}:${pos.line}:${pos.col}: ${field}: ${message}`);
}

/** Offset of the deepest node that exists along the path (a missing key is reported at its parent). */
function offsetOf(doc: Document, issuePath: readonly PropertyKey[]): number {
  let node: unknown = doc.contents;
  let offset = doc.contents?.range?.[0] ?? 0;
  for (const key of issuePath) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key),
      );
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key];
      if (!item) break;
      offset = (item as Node).range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}

function formatPath(issuePath: readonly PropertyKey[]): string {
  if (issuePath.length === 0) return '(file)';
  return issuePath
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
