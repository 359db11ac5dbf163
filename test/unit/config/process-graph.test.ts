import {
  cleanupNode,
  DEFAULT_PROCESS_GRAPH,
  gateAnswerRefusal,
  graphProblems,
  nextNode,
  nodeOutcomeRefusal,
  phaseLabel,
  renderPrompt,
  type AgentNode,
  type ProcessGraph,
} from '../../../src/config/process-graph';

describe('the process graph', () => {
  it('walks the default graph: spec → spec-approval → implement → review → done, reject back to spec', () => {
    const g = DEFAULT_PROCESS_GRAPH;
    expect(g.start).toBe('spec');
    expect(nextNode(g, 'spec', 'success')).toBe('spec-approval');
    expect(nextNode(g, 'spec-approval', 'approve')).toBe('implement');
    expect(nextNode(g, 'spec-approval', 'reject')).toBe('spec');
    expect(nextNode(g, 'implement', 'success')).toBe('review');
    expect(nextNode(g, 'review', 'success')).toBe('done');
    expect(graphProblems(g)).toEqual([]);
    expect(cleanupNode(g)).toBe('cleanup');
  });

  it('has no edge for an outcome a node does not take, nor out of a terminal or an unknown node', () => {
    const g = DEFAULT_PROCESS_GRAPH;
    expect(nextNode(g, 'spec', 'approve')).toBeNull();
    expect(nextNode(g, 'done', 'success')).toBeNull();
    expect(nextNode(g, 'nowhere', 'success')).toBeNull();
  });

  it('names every problem of a malformed graph with its path', () => {
    const bad: ProcessGraph = {
      start: 'missing',
      nodes: {
        a: { kind: 'agent', prompt: 'x', artifacts: [], on: { success: 'ghost', approve: 'a' } },
        g: { kind: 'gate', question: 'q', on: {} },
        done: { kind: 'terminal', terminal: 'done' },
        done2: { kind: 'terminal', terminal: 'done' },
      },
    };
    const problems = graphProblems(bad).map((p) => `${p.path.join('.')}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        "start: start node 'missing' is not one of the nodes",
        "nodes.a.on.success: no node 'ghost'",
        'nodes.a.on.approve: a agent node takes success and failure, not approve',
        'nodes.g.on: a gate node needs at least one edge',
        "nodes: the graph needs exactly one 'done' terminal, found 2",
        "nodes: the graph needs exactly one 'cleanup' terminal, found 0",
      ]),
    );
  });

  it('refuses a node the start cannot reach, but not the cleanup terminal the verb reaches', () => {
    const g: ProcessGraph = {
      start: 'a',
      nodes: {
        a: { kind: 'agent', prompt: 'x', artifacts: [], on: { success: 'done' } },
        orphan: { kind: 'gate', question: 'q', on: { approve: 'done' } },
        done: { kind: 'terminal', terminal: 'done' },
        cleanup: { kind: 'terminal', terminal: 'cleanup' },
      },
    };
    expect(graphProblems(g)).toEqual([
      { path: ['nodes', 'orphan'], message: "node 'orphan' is not reachable from 'a'" },
    ]);
  });

  it('fills the ref and id into a prompt, and names the phase label', () => {
    const spec = DEFAULT_PROCESS_GRAPH.nodes.spec as AgentNode;
    expect(renderPrompt(spec, 'github:octo/repo#15', '15')).toBe(
      '/the-loop:work-on github:octo/repo#15 --phase spec',
    );
    expect(phaseLabel('spec-approval')).toBe('loop:spec-approval');
  });
});

describe('the gate and outcome validators', () => {
  const graph = DEFAULT_PROCESS_GRAPH;
  const approve = { gate: 'spec-approval', answer: 'approve', authorized: true };

  it('accept an authorized answer to the gate waiting, and refuse every other with the reason', () => {
    expect(gateAnswerRefusal(graph, 'spec-approval', false, approve)).toBeNull();
    expect(
      gateAnswerRefusal(graph, 'spec-approval', false, { ...approve, answer: 'reject', reason: 'no tests' }),
    ).toBeNull();
    expect(gateAnswerRefusal(graph, 'spec-approval', false, { ...approve, authorized: false })).toBe(
      'not authorized to answer a gate',
    );
    expect(gateAnswerRefusal(graph, 'spec-approval', false, { ...approve, answer: 'maybe' })).toBe(
      "unknown answer 'maybe': approve or reject",
    );
    expect(gateAnswerRefusal(null, null, false, approve)).toBe('this work item has no process graph running');
    expect(gateAnswerRefusal(graph, null, false, approve)).toBe(
      'this work item has no process graph running',
    );
    expect(gateAnswerRefusal(graph, 'implement', false, approve)).toBe(
      "not waiting at a gate (at 'implement')",
    );
    const twoGates: ProcessGraph = {
      start: 'g1',
      nodes: {
        g1: { kind: 'gate', question: 'first?', on: { approve: 'g2' } },
        g2: { kind: 'gate', question: 'second?', on: { approve: 'done' } },
        done: { kind: 'terminal', terminal: 'done' },
        cleanup: { kind: 'terminal', terminal: 'cleanup' },
      },
    };
    expect(gateAnswerRefusal(twoGates, 'g2', false, { ...approve, gate: 'g1' })).toBe(
      "stale answer: 'g1' is not the gate waiting ('g2')",
    );
    expect(gateAnswerRefusal(graph, 'spec-approval', true, approve)).toBe(
      "'spec-approval' is already answered",
    );
  });

  it("accept the current agent node's outcome, and refuse a stale, repeated or unknown one", () => {
    const success = { node: 'spec', outcome: 'success' };
    expect(nodeOutcomeRefusal(graph, 'spec', false, success)).toBeNull();
    expect(nodeOutcomeRefusal(graph, 'spec', false, { ...success, outcome: 'failure' })).toBeNull();
    expect(nodeOutcomeRefusal(graph, 'spec', false, { ...success, outcome: 'approve' })).toBe(
      "unknown outcome 'approve': success or failure",
    );
    expect(nodeOutcomeRefusal(null, null, false, success)).toBe(
      'this work item has no process graph running',
    );
    expect(nodeOutcomeRefusal(graph, 'spec-approval', false, success)).toBe(
      "not at an agent node (at 'spec-approval')",
    );
    expect(nodeOutcomeRefusal(graph, 'implement', false, success)).toBe(
      "stale outcome: 'spec' is not the current node ('implement')",
    );
    expect(nodeOutcomeRefusal(graph, 'spec', true, success)).toBe("'spec' already has its outcome");
  });
});
