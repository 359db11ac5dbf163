import { patched, setCurrentDetails, uuid4, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { WorkItemActivities } from '../../activities/work-item';
import {
  cleanupNode,
  gateAnswerRefusal,
  gateComment,
  nextNode,
  nodeOutcomeRefusal,
  renderPrompt,
  waitingDetails,
  type GraphOutcome,
  type ProcessGraph,
} from '../../config/process-graph';
import type { DeliverableEvent } from './messages';
import type { GateAnswer, NodeOutcome, NodeReport, ProcessPointer } from './process-messages';
import { graphHostOp, type GraphHostSession } from './graph-host-op';
import { asUpdateFailure } from '../update-failure';
import { BRANCH_STATE, PROCESS_GRAPH } from './patches';

/** What the graph asks of the session it belongs to. */
export interface ProcessSessionPort extends GraphHostSession {
  /** Queue an agent node's turn: delivered like any other event (spawning the pane when there is none). */
  enqueue(event: DeliverableEvent): void;
}

/**
 * The work item's pointer into its frozen process graph (process-graph.ts): moves on gate answers and agent
 * outcomes, mirrors each node on the ticket (label, one comment per gate) and in the current details, and queues
 * each agent node's turn for the session. A run started without a graph (an older client) has none of this.
 */
export class WorkItemProcess {
  private readonly graph: ProcessGraph | null;
  private pointer: string | null;
  private labelled: string | null;
  /** An accepted answer or outcome is being applied: a second one for the same node is stale. */
  private moving = false;

  constructor(
    private readonly workItem: string,
    graph: ProcessGraph | undefined,
    carried: ProcessPointer | undefined,
    private readonly host: ActivityInterfaceFor<WorkItemActivities>,
    private readonly session: ProcessSessionPort,
  ) {
    this.graph = graph !== undefined && patched(PROCESS_GRAPH) ? graph : null;
    this.pointer = carried?.node ?? null;
    this.labelled = carried?.labelled ?? null;
  }

  /** A run with a process graph: its nodes' turns replace the plain kickoff. */
  get hasGraph(): boolean {
    return this.graph !== null;
  }

  /** The current node; null before the first start (or without a graph). */
  get node(): string | null {
    return this.pointer;
  }

  /** The gate the work item waits at, or null. */
  get waitingAt(): string | null {
    if (!this.graph || this.pointer === null) return null;
    return this.graph.nodes[this.pointer]?.kind === 'gate' ? this.pointer : null;
  }

  /** The gate the work item waits at, with what it asks; null when it waits at none. */
  get gate(): { node: string; details: string } | null {
    const node = this.waitingAt;
    return node && this.graph ? { node, details: waitingDetails(this.graph, node) } : null;
  }

  /** A start now would wait at a gate (the one the pointer is at, or a graph that starts with one): no spawn. */
  get startWaits(): boolean {
    if (!this.graph) return false;
    return this.graph.nodes[this.pointer ?? this.graph.start]?.kind === 'gate';
  }

  carry(): ProcessPointer {
    return { node: this.pointer, labelled: this.labelled };
  }

  /**
   * `start`: the first start enters the node the work item's branch says it is at (after a reset, or on a new
   * machine), else the graph's start node, queuing its turn; later ones find it where it is.
   */
  async begin(): Promise<string | null> {
    if (!this.graph) return null;
    if (this.pointer === null) await this.enter((await this.derived()) ?? this.graph.start);
    return this.waitingAt ? waitingDetails(this.graph, this.waitingAt) : null;
  }

  private async derived(): Promise<string | null> {
    if (!patched(BRANCH_STATE)) return null;
    const request = { workItem: this.workItem, graph: this.graph as ProcessGraph };
    // an unreadable branch is no reason to refuse a start: the graph starts over
    return graphHostOp(this.session, () => this.host.workItemDeriveNode(request)).catch(() => null);
  }

  validateAnswer(answer: GateAnswer): void {
    const refusal = gateAnswerRefusal(this.graph, this.pointer, this.moving, answer);
    if (refusal) throw new Error(refusal);
  }

  async answer(answer: GateAnswer): Promise<NodeReport> {
    return this.move(answer.answer);
  }

  validateOutcome(report: NodeOutcome): void {
    const refusal = nodeOutcomeRefusal(this.graph, this.pointer, this.moving, report);
    if (refusal) throw new Error(refusal);
  }

  /**
   * A success leaves the node only with its artifacts in the session's directory (host/branch-node.ts); a checkout
   * commits them as the next node starts.
   */
  async outcome(report: NodeOutcome): Promise<NodeReport> {
    if (report.outcome === 'success' && patched(BRANCH_STATE)) {
      const graph = this.graph as ProcessGraph;
      const request = { workItem: this.workItem, graph, node: report.node };
      this.moving = true;
      let missing: string[];
      try {
        missing = await graphHostOp(this.session, () => this.host.workItemMissingArtifacts(request));
      } catch (error) {
        throw asUpdateFailure(error);
      } finally {
        this.moving = false;
      }
      if (missing.length > 0) {
        throw asUpdateFailure(new Error(`'${report.node}' has not left ${missing.join(', ')}`));
      }
    }
    return this.move(report.outcome);
  }

  /** cleanup, or an authorized closure: the pointer moves to the cleanup terminal first, from any node. */
  async enterCleanup(): Promise<void> {
    if (!this.graph) return;
    const target = cleanupNode(this.graph);
    if (target !== null && this.pointer !== target) await this.enter(target);
  }

  private async move(outcome: GraphOutcome): Promise<NodeReport> {
    const graph = this.graph as ProcessGraph;
    const from = this.pointer as string;
    const to = nextNode(graph, from, outcome);
    if (to === null) {
      throw asUpdateFailure(new Error(`'${from}' has no '${outcome}' edge in this work item's graph`));
    }
    this.moving = true;
    try {
      const warnings = await this.enter(to);
      return { workItem: this.workItem, from, to, details: waitingDetails(graph, to), warnings };
    } finally {
      this.moving = false;
    }
  }

  /** Moves the pointer, mirrors it (best effort), and queues an agent node's turn. */
  private async enter(node: string): Promise<string[]> {
    const graph = this.graph as ProcessGraph;
    const previous = this.labelled;
    this.pointer = node;
    setCurrentDetails(waitingDetails(graph, node));
    const target = graph.nodes[node];
    let warnings: string[];
    try {
      const result = await graphHostOp(this.session, () =>
        this.host.workItemEnterNode({
          workItem: this.workItem,
          node,
          previous,
          graph,
          comment: target?.kind === 'gate' ? gateComment(graph, node) : null,
        }),
      );
      this.labelled = node;
      warnings = result.warnings;
    } catch (error) {
      warnings = [`could not record ${node}: ${String((error as Error).message)}`];
    }
    if (target?.kind === 'agent') {
      const id = this.workItem.replace(/^.*#/, '');
      // a node entered again (a rejected spec) is a fresh turn, not a redelivery the session drops
      this.session.enqueue({
        id: `graph:${node}:${uuid4()}`,
        text: renderPrompt(target, this.workItem, id),
        source: 'graph',
      });
    }
    return warnings;
  }
}
