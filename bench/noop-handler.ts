// A handler module for the receiver's forwarding thread that hands nothing on (compiled to
// dist/bench/noop-handler.js): the webhook bench's accept-only rows, where nothing drains into Temporal.
import type { OpenHandler } from '../src/webhook/forward-thread';

export const openHandler: OpenHandler = () =>
  Promise.resolve({
    handle: () => Promise.resolve({ summary: 'no-op' }),
    close: () => Promise.resolve(),
  });
