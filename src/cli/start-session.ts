import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { goalSession } from '../workflows/goal-session/workflow';
import type { GoalSessionInput } from '../workflows/goal-session/types';
import {
  LoopGoal,
  LoopHarness,
  LoopKind,
  LoopParentSession,
  LoopStatus,
} from '../workflows/search-attributes';
import { goalDetails, goalSummary, searchableGoal } from '../workflows/goal-session/presentation';

/** Starts a goal session's workflow: id = session id, the goal as its summary in the Web UI. */
export async function startGoalSession(
  client: Client,
  input: GoalSessionInput,
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof goalSession>> {
  return client.workflow.start<typeof goalSession>('goalSession', {
    workflowId: input.sessionId,
    taskQueue: input.taskQueue,
    args: [input],
    memo: { sessionDir: input.sessionDir, cwd: input.cwd },
    staticSummary: goalSummary(input.goal),
    staticDetails: goalDetails(input.goal, input.sessionDir),
    typedSearchAttributes: [
      { key: LoopKind, value: 'goal' },
      { key: LoopStatus, value: 'starting' },
      { key: LoopHarness, value: input.harness },
      { key: LoopGoal, value: searchableGoal(input.goal) },
      ...(input.parentSessionId ? [{ key: LoopParentSession, value: input.parentSessionId }] : []),
    ],
  });
}
