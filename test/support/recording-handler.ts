// A handler module for the receiver's forwarding thread (compiled to dist/test/support/recording-handler.js): it
// stands in for the bridge, appending each delivery it is handed to `file` with the thread that handled it.
import { threadId } from 'node:worker_threads';
import { appendFile } from 'node:fs/promises';
import type { OpenHandler } from '../../src/webhook/forward-thread';

export interface RecordingHandlerOptions {
  file: string;
}

export interface RecordedDelivery {
  deliveryId: string;
  number: number;
  threadId: number;
}

export const openHandler: OpenHandler = (options) => {
  const { file } = options as RecordingHandlerOptions;
  return Promise.resolve({
    handle: async ({ deliveryId, payload }) => {
      const number = (payload as { issue: { number: number } }).issue.number;
      const line: RecordedDelivery = { deliveryId, number, threadId };
      await appendFile(file, `${JSON.stringify(line)}\n`);
      return { summary: 'recorded' };
    },
    close: () => Promise.resolve(),
  });
};
