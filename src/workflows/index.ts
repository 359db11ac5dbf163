// Every Temporal workflow the worker registers.
export {};
