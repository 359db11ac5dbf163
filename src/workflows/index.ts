// Every Temporal workflow the worker registers.
export { workItemSession } from './work-item';
