import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_PROCESS_GRAPH, graphProblems, type ProcessGraph } from './process-graph';
import { INPUT_FILE_LIMITS, readInputFile } from './read-input-file';
import { parseYamlWithSchema } from './yaml-errors';

const nodeId = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a node id is lowercase letters, digits and dashes');

const edges = z
  .object({
    success: nodeId.optional(),
    failure: nodeId.optional(),
    approve: nodeId.optional(),
    reject: nodeId.optional(),
  })
  .strict();

const agentNode = z
  .object({
    kind: z.literal('agent'),
    /** The turn's text: a prompt or a slash command; `{ref}` and `{id}` are filled in. */
    prompt: z.string().min(1),
    /** Files the turn must leave, under the directory its session runs in (the checkout, or a registered one's). */
    artifacts: z.array(z.string().min(1)).default([]),
    on: edges.default({}),
  })
  .strict();

const gateNode = z
  .object({
    kind: z.literal('gate'),
    question: z.string().min(1).default('approve, or reject with a reason'),
    on: edges.default({}),
  })
  .strict();

const terminalNode = z
  .object({ kind: z.literal('terminal'), terminal: z.enum(['done', 'cleanup']) })
  .strict();

const graphNode = z.discriminatedUnion('kind', [agentNode, gateNode, terminalNode]);

function checkGraph(graph: ProcessGraph, ctx: z.RefinementCtx): void {
  for (const problem of graphProblems(graph)) {
    ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  }
}

/** A process graph file (`process: { file: … }`), and the inline `process:` section without `file`. */
export const processGraphSchema = z
  .object({ start: nodeId, nodes: z.record(nodeId, graphNode) })
  .strict()
  .superRefine(checkGraph);

/** `process:` in the config: the graph inline, or `file:` naming a graph file (relative to the config). */
export const processSectionSchema = z
  .object({
    file: z.string().min(1).optional(),
    start: nodeId.optional(),
    nodes: z.record(nodeId, graphNode).optional(),
  })
  .strict()
  .superRefine((section, ctx) => {
    if (section.file !== undefined) {
      if (section.start !== undefined || section.nodes !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['file'], message: 'either file or start and nodes, not both' });
      }
      return;
    }
    if (section.start === undefined || section.nodes === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs file, or start and nodes' });
      return;
    }
    checkGraph({ start: section.start, nodes: section.nodes }, ctx);
  });

export type ProcessSection = z.infer<typeof processSectionSchema>;

/**
 * The graph a work item starting now is frozen with: the config's inline graph, the file it names (read now, its
 * errors naming that file, line and field), or the default graph.
 */
export function resolveProcessGraph(
  section: ProcessSection | undefined,
  configPath: string | null,
): ProcessGraph {
  if (!section) return DEFAULT_PROCESS_GRAPH;
  if (section.file === undefined) {
    return { start: section.start as string, nodes: section.nodes as ProcessGraph['nodes'] };
  }
  const file = resolve(configPath ? dirname(configPath) : process.cwd(), section.file);
  const text = readInputFile({ flag: 'process.file', path: file, maxBytes: INPUT_FILE_LIMITS.config });
  return parseYamlWithSchema(file, text, processGraphSchema);
}
