import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { goalSession } from '../workflows/goal-session';
import type { GoalSessionInput } from '../workflows/goal-session-types';
import { LoopHarness, LoopKind, LoopParentSession, LoopStatus } from '../workflows/search-attributes';

/** Starts a goal session's workflow: id = session id, the goal as its summary in the Web UI. */
export async function startGoalSession(
  client: Client,
  input: GoalSessionInput,
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof goalSession>> {
  const firstLine = input.goal.trim().split('\n')[0] ?? '';
  return client.workflow.start<typeof goalSession>('goalSession', {
    workflowId: input.sessionId,
    taskQueue: input.taskQueue,
    args: [input],
    memo: { sessionDir: input.sessionDir, cwd: input.cwd },
    staticSummary: firstLine.length > 200 ? `${firstLine.slice(0, 197)}…` : firstLine,
    staticDetails: `Goal session in ${input.sessionDir}\n\n${input.goal}`,
    typedSearchAttributes: [
      { key: LoopKind, value: 'goal' },
      { key: LoopStatus, value: 'starting' },
      { key: LoopHarness, value: input.harness },
      ...(input.parentSessionId ? [{ key: LoopParentSession, value: input.parentSessionId }] : []),
    ],
  });
}
