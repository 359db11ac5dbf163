// Every Temporal workflow the worker registers.
export { workItemSession } from './work-item';
export { repoPoller } from './repo-poller';
