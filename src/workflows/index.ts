// Every Temporal workflow the worker registers.
export { goalSession } from './goal-session/workflow';
export { workItemSession } from './work-item/workflow';
export { repoPoller } from './repo-poller/workflow';
