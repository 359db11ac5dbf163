import { proxyActivities } from '@temporalio/workflow';

interface BareActivities {
  noop(): Promise<number>;
}

/** The floor under a goal session: one no-op activity per turn on another queue, and nothing else. */
export async function bareActivityLoop(turns: number, activityQueue: string): Promise<number[]> {
  const { noop } = proxyActivities<BareActivities>({
    startToCloseTimeout: '1 minute',
    taskQueue: activityQueue,
  });
  const starts: number[] = [];
  for (let i = 0; i < turns; i++) {
    starts.push(Date.now());
    await noop();
  }
  return starts;
}
