import { proxyActivities } from '@temporalio/workflow';

interface BareActivities {
  startHarness(): Promise<number>;
}

/** The floor under a goal session: one activity per turn on another queue that starts the harness, nothing else. */
export async function bareActivityLoop(turns: number, activityQueue: string): Promise<number[]> {
  const { startHarness } = proxyActivities<BareActivities>({
    startToCloseTimeout: '1 minute',
    taskQueue: activityQueue,
  });
  const starts: number[] = [];
  for (let i = 0; i < turns; i++) {
    starts.push(Date.now());
    await startHarness();
  }
  return starts;
}
