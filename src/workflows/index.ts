// Every Temporal workflow the worker registers.
export { goalSession } from './goal-session';
export { workItemSession } from './work-item';
export { repoPoller } from './repo-poller';
