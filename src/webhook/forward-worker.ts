// The forwarding thread started by forward-thread.ts (compiled to dist/src/webhook/forward-worker.js): it opens
// the handler module named in its workerData and hands on each delivery posted to it, reporting back what was
// handed on; the thread that accepts keeps the inbox and ledger.
import { readlink } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Forwarder } from './forwarder';
import type { ForwardWorkerData, FromForwardWorker, OpenHandler, ToForwardWorker } from './forward-thread';
import { openDelivery } from './inbox';
import type { MessageLog } from '../log/message-log';

/**
 * The nice value of this thread. Accepting answers GitHub within its 10 s and a burst should see no slower an
 * answer than a quiet moment, while forwarding has no deadline (the inbox holds what waits): so where the two
 * want the same core, accepting gets it, and forwarding catches up when the burst is over.
 */
const FORWARDING_NICE = 10;

/** Linux only: /proc/thread-self names this thread's id, and setpriority on a thread id is that thread's. */
async function yieldToAccepting(logger: MessageLog): Promise<void> {
  try {
    const tid = Number((await readlink('/proc/thread-self')).split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, FORWARDING_NICE);
  } catch (error) {
    logger.info(`webhook: forwarding runs at the receiver's priority: ${String(error)}`);
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('forward-worker runs as a worker thread');
  const data = workerData as ForwardWorkerData;
  const post = (message: FromForwardWorker) => port.postMessage(message);
  const logger: MessageLog = {
    info: (message) => post({ type: 'log', level: 'info', message }),
    warn: (message) => post({ type: 'log', level: 'warn', message }),
  };
  await yieldToAccepting(logger);
  const { openHandler } = (await import(data.handler.module)) as { openHandler: OpenHandler };
  const opened = await openHandler(data.handler.options, logger);
  const forwarder = new Forwarder({
    handle: (delivery) =>
      opened.handle(delivery).catch((error: unknown) => {
        post({ type: 'retried' });
        throw error;
      }),
    done: async ({ deliveryId, event, keys }) =>
      post({ type: 'done', delivery: { deliveryId, event, keys } }),
    concurrency: data.concurrency,
    // this thread's own counts; the accepting thread keeps the receiver's from the messages above
    stats: { forwarded: 0, retried: 0, pending: 0 },
    logger,
    ...(data.backoff ? { backoff: data.backoff } : {}),
  });
  port.on('message', (message: ToForwardWorker) => {
    if (message.type === 'deliver') {
      // parsed here, not where it was accepted: the parse is most of a delivery's CPU
      const delivery = openDelivery(message.delivery);
      if ('refused' in delivery) {
        const { deliveryId, event, keys } = message.delivery;
        post({ type: 'refused', delivery: { deliveryId, event, keys }, reason: delivery.refused });
      } else forwarder.enqueue(delivery);
    } else
      void forwarder
        .close(message.graceMs)
        .then(() => opened.close())
        .finally(() => {
          post({ type: 'closed' });
          port.close();
        });
  });
}

// a failure (the handler cannot open: Temporal unreachable) is an unhandled rejection, which ends this thread
// with an 'error' event that the accepting thread logs
void main();
