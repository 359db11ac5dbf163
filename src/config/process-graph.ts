// The work item's process graph as data, and its pure rules: which node an outcome leads to, whether a graph is
// well formed, and the default graph. Runs inside workflow code (the graph is frozen into the workflow input):
// no imports with side effects, no Node built-ins.

export const GRAPH_OUTCOMES = ['success', 'failure', 'approve', 'reject'] as const;
export type GraphOutcome = (typeof GRAPH_OUTCOMES)[number];

export type GraphEdges = Partial<Record<GraphOutcome, string>>;

/** A harness turn: its prompt (or slash command; `{ref}` and `{id}` are filled in) and the files it must leave. */
export interface AgentNode {
  kind: 'agent';
  prompt: string;
  artifacts: string[];
  on: GraphEdges;
}

/** Waits for a human answer: approve or reject (with a reason). */
export interface GateNode {
  kind: 'gate';
  /** What the answerer is asked, for the ticket comment and the current details. */
  question: string;
  on: GraphEdges;
}

export interface TerminalNode {
  kind: 'terminal';
  terminal: 'done' | 'cleanup';
}

export type GraphNode = AgentNode | GateNode | TerminalNode;

export interface ProcessGraph {
  start: string;
  nodes: Record<string, GraphNode>;
}

/** One problem with a graph, at a path under the graph (for the config's file:line:field error). */
export interface GraphProblem {
  path: (string | number)[];
  message: string;
}

/** The node an outcome at `node` leads to; null when the graph has no such edge (or no such node). */
export function nextNode(graph: ProcessGraph, node: string, outcome: GraphOutcome): string | null {
  const current = graph.nodes[node];
  if (!current || current.kind === 'terminal') return null;
  return current.on[outcome] ?? null;
}

/** The terminal node `cleanup` moves the pointer to: reachable from every node, by the cleanup verb. */
export function cleanupNode(graph: ProcessGraph): string | null {
  return terminalOf(graph, 'cleanup');
}

function terminalOf(graph: ProcessGraph, terminal: TerminalNode['terminal']): string | null {
  for (const [id, node] of Object.entries(graph.nodes)) {
    if (node.kind === 'terminal' && node.terminal === terminal) return id;
  }
  return null;
}

/** Which outcomes a node of each kind may take. */
function allowedOutcomes(node: GraphNode): readonly GraphOutcome[] {
  if (node.kind === 'agent') return ['success', 'failure'];
  if (node.kind === 'gate') return ['approve', 'reject'];
  return [];
}

/**
 * Everything wrong with a graph: the start exists, every edge leads to a node and fits its node's kind, agent and
 * gate nodes lead somewhere, every node is reachable from the start, and there is exactly one `done` and one
 * `cleanup` terminal (cleanup is where the cleanup verb moves the pointer from any node).
 */
export function graphProblems(graph: ProcessGraph): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const ids = Object.keys(graph.nodes);
  if (!graph.nodes[graph.start]) {
    problems.push({ path: ['start'], message: `start node '${graph.start}' is not one of the nodes` });
  }
  for (const [id, node] of Object.entries(graph.nodes)) {
    if (node.kind === 'terminal') continue;
    const allowed = allowedOutcomes(node);
    const edges = Object.entries(node.on) as [GraphOutcome, string][];
    if (edges.length === 0) {
      problems.push({ path: ['nodes', id, 'on'], message: `a ${node.kind} node needs at least one edge` });
    }
    for (const [outcome, target] of edges) {
      if (!allowed.includes(outcome)) {
        problems.push({
          path: ['nodes', id, 'on', outcome],
          message: `a ${node.kind} node takes ${allowed.join(' and ')}, not ${outcome}`,
        });
      } else if (!graph.nodes[target]) {
        problems.push({ path: ['nodes', id, 'on', outcome], message: `no node '${target}'` });
      }
    }
  }
  for (const terminal of ['done', 'cleanup'] as const) {
    const count = ids.filter((id) => {
      const node = graph.nodes[id];
      return node?.kind === 'terminal' && node.terminal === terminal;
    }).length;
    if (count !== 1) {
      problems.push({
        path: ['nodes'],
        message: `the graph needs exactly one '${terminal}' terminal, found ${count}`,
      });
    }
  }
  if (graph.nodes[graph.start]) {
    const reached = reachable(graph);
    for (const id of ids) {
      const node = graph.nodes[id];
      const viaCleanup = node?.kind === 'terminal' && node.terminal === 'cleanup';
      if (!reached.has(id) && !viaCleanup) {
        problems.push({
          path: ['nodes', id],
          message: `node '${id}' is not reachable from '${graph.start}'`,
        });
      }
    }
  }
  return problems;
}

function reachable(graph: ProcessGraph): Set<string> {
  const seen = new Set<string>([graph.start]);
  const pending = [graph.start];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    const node = graph.nodes[id];
    if (!node || node.kind === 'terminal') continue;
    for (const target of Object.values(node.on)) {
      if (target !== undefined && !seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return seen;
}

/** An agent node's prompt for a work item: `{ref}` is the canonical ref, `{id}` its spec id. */
export function renderPrompt(node: AgentNode, ref: string, id: string): string {
  return node.prompt.replaceAll('{ref}', ref).replaceAll('{id}', id);
}

/** The phase label a node is mirrored as on the ticket. */
export function phaseLabel(node: string): string {
  return `loop:${node}`;
}

/** spec → spec-approval (gate) → implement → review → done; cleanup reachable from every node by the verb. */
export const DEFAULT_PROCESS_GRAPH: ProcessGraph = {
  start: 'spec',
  nodes: {
    spec: {
      kind: 'agent',
      prompt: '/the-loop:work-on {ref} --phase spec',
      artifacts: ['docs/specs/{id}/spec.md'],
      on: { success: 'spec-approval' },
    },
    'spec-approval': {
      kind: 'gate',
      question: 'approve the spec, or reject it with a reason',
      on: { approve: 'implement', reject: 'spec' },
    },
    implement: {
      kind: 'agent',
      prompt: '/the-loop:work-on {ref} --phase implement',
      artifacts: [],
      on: { success: 'review' },
    },
    review: {
      kind: 'agent',
      prompt: '/the-loop:work-on {ref} --phase review',
      artifacts: [],
      on: { success: 'done' },
    },
    done: { kind: 'terminal', terminal: 'done' },
    cleanup: { kind: 'terminal', terminal: 'cleanup' },
  },
};

// --- the pointer: where a work item is in its graph ---------------------------------------------------------

export type GateAnswerKind = 'approve' | 'reject';

/** Why an answer to a gate is refused before it enters the history; null to accept it. */
export function gateAnswerRefusal(
  graph: ProcessGraph | null,
  pointer: string | null,
  answering: boolean,
  answer: { gate: string; answer: string; authorized: boolean; reason?: string | null },
): string | null {
  if (!answer.authorized) return 'not authorized to answer a gate';
  if (answer.answer !== 'approve' && answer.answer !== 'reject') {
    return `unknown answer '${answer.answer}': approve or reject`;
  }
  if (!graph || pointer === null) return 'this work item has no process graph running';
  if (graph.nodes[pointer]?.kind !== 'gate') return `not waiting at a gate (at '${pointer}')`;
  if (answer.gate !== pointer) return `stale answer: '${answer.gate}' is not the gate waiting ('${pointer}')`;
  if (answering) return `'${pointer}' is already answered`;
  return null;
}

/** Why an agent node's reported outcome is refused; null to accept it. */
export function nodeOutcomeRefusal(
  graph: ProcessGraph | null,
  pointer: string | null,
  moving: boolean,
  report: { node: string; outcome: string },
): string | null {
  if (report.outcome !== 'success' && report.outcome !== 'failure') {
    return `unknown outcome '${report.outcome}': success or failure`;
  }
  if (!graph || pointer === null) return 'this work item has no process graph running';
  if (graph.nodes[pointer]?.kind !== 'agent') return `not at an agent node (at '${pointer}')`;
  if (report.node !== pointer)
    return `stale outcome: '${report.node}' is not the current node ('${pointer}')`;
  if (moving) return `'${pointer}' already has its outcome`;
  return null;
}

/** What the work item waits for at a node: the current details in the Web UI, and `start`'s report. */
export function waitingDetails(graph: ProcessGraph, node: string): string {
  const current = graph.nodes[node];
  if (!current) return `at ${node}`;
  if (current.kind === 'gate') {
    return `waiting at ${node}: ${current.question} — comment \`the-loop approve\` or \`the-loop reject <reason>\`, or run \`the-loop sessions answer\``;
  }
  if (current.kind === 'agent') return `at ${node}: the agent's turn`;
  return `at ${node}: ${current.terminal}`;
}

/** The one comment a gate puts on the ticket. */
export function gateComment(graph: ProcessGraph, node: string): string {
  const current = graph.nodes[node];
  const question = current?.kind === 'gate' ? current.question : 'answer the gate';
  return [
    `the-loop is waiting at **${node}**: ${question}.`,
    '',
    'An authorized user answers with a comment of its own line:',
    '- `the-loop approve`',
    '- `the-loop reject <reason>`',
  ].join('\n');
}
