import type { Client } from '@temporalio/client';
import { budgetRaisedSignal } from '../workflows/goal-session/messages';

/** The workflow type of goal sessions (the function src/workflows/goal-session/workflow.ts exports). */
const GOAL_SESSION_WORKFLOW_TYPE = 'goalSession';

/**
 * Tells every running goal session that waits at the fleet's budget (its LoopWaiting search attribute) that the
 * budget was raised; each checks again before its next turn. The ids told, sorted.
 */
export async function tellGoalSessionsBudgetRaised(client: Client): Promise<string[]> {
  const query = [
    `WorkflowType = '${GOAL_SESSION_WORKFLOW_TYPE}'`,
    `ExecutionStatus = 'Running'`,
    `LoopWaiting = 'budget'`,
  ].join(' AND ');
  const told: string[] = [];
  for await (const execution of client.workflow.list({ query })) {
    await client.workflow.getHandle(execution.workflowId).signal(budgetRaisedSignal);
    told.push(execution.workflowId);
  }
  return told.sort();
}
