import { temporal } from '@temporalio/proto';
import { percentile } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

function timeMs(event: HistoryEvent): number {
  const t = event.eventTime;
  return Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
}

export interface Phase {
  name: string;
  p50: number;
  p99: number;
}

/**
 * Where a session's turns spend their time, read from the server's own event times: the activity (the turn),
 * the workflow task its completion causes, and the dispatch of the next activity.
 */
export function historyPhases(events: HistoryEvent[]): Phase[] {
  const toTask: number[] = [];
  const onWorker: number[] = [];
  const toActivity: number[] = [];
  const activity: number[] = [];
  let activityCompleted: number | null = null;
  let taskStarted: number | null = null;
  let taskCompleted: number | null = null;
  let activityStarted: number | null = null;
  for (const event of events) {
    const at = timeMs(event);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        if (activityStarted !== null) activity.push(at - activityStarted);
        activityCompleted = at;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        if (activityCompleted !== null) toTask.push(at - activityCompleted);
        taskStarted = at;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        if (activityCompleted !== null && taskStarted !== null) onWorker.push(at - taskStarted);
        taskCompleted = at;
        activityCompleted = null;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        if (taskCompleted !== null) toActivity.push(at - taskCompleted);
        activityStarted = at;
        break;
      default:
        break;
    }
  }
  const phase = (name: string, values: number[]): Phase => ({
    name,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
  });
  return [
    phase('activity on the worker (the turn)', activity),
    phase('activity completed → workflow task started', toTask),
    phase('workflow task on the worker', onWorker),
    phase('workflow task completed → activity started', toActivity),
  ];
}
