/**
 * Messages of the work item's process graph (process-graph.ts), shared by the workflow, the CLI, the bridge and
 * the tests. No Node built-ins: bundled into workflows.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { GateAnswerKind } from '../../config/process-graph';

export interface GateAnswer {
  /** The gate answered: an answer naming another gate than the one waiting is stale and refused. */
  gate: string;
  answer: GateAnswerKind;
  reason: string | null;
  by: string;
  via: 'cli' | 'comment' | 'label' | 'board';
  /** Checked where the answer came in (keyword authorization, the local user); refused by the validator if not. */
  authorized: boolean;
}

/** An agent node's turn ended: its outcome moves the pointer along the graph. */
export interface NodeOutcome {
  node: string;
  outcome: 'success' | 'failure';
  by: string;
}

export interface NodeReport {
  workItem: string;
  /** The node before and after. */
  from: string;
  to: string;
  /** What the work item waits for now. */
  details: string;
  warnings: string[];
}

/** Where a work item is in its graph: carried across continue-as-new. */
export interface ProcessPointer {
  node: string | null;
  /** The node each phase label was last set for, so the next node's label replaces it. */
  labelled: string | null;
}

export const answerGateUpdate = defineUpdate<NodeReport, [GateAnswer]>('workItem.answerGate');
export const nodeOutcomeUpdate = defineUpdate<NodeReport, [NodeOutcome]>('workItem.nodeOutcome');
