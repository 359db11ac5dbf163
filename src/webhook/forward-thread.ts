import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorLine } from '../errors';
import { silentLog, type MessageLog } from '../log/message-log';
import type { Backoff } from './backoff';
import type { DeliveryLedger } from './dedupe';
import { dropRefused, replayInbox, settleHandedOn, type Forwarding, type ForwarderStats } from './forwarder';
import type { AcceptedDelivery, DeliveryInbox, QueuedDelivery } from './inbox';
import type { DeliveryHandler } from './receiver';

/**
 * What hands deliveries on inside the forwarding thread: a compiled module exporting `openHandler`, called there
 * with `options` (structured-cloned, so plain data: a config, a state directory). A module and not a function,
 * because a closure cannot cross into a thread; the bridge's is bridge-handler.ts.
 */
export interface HandlerModule {
  module: string;
  options: unknown;
}

export interface OpenedHandler {
  handle: DeliveryHandler;
  close(): Promise<void>;
}

export type OpenHandler = (options: unknown, logger: MessageLog) => Promise<OpenedHandler>;

type DeliveryRef = Pick<QueuedDelivery, 'deliveryId' | 'event' | 'keys'>;

export interface ForwardWorkerData {
  handler: HandlerModule;
  concurrency: number;
  backoff?: Backoff;
}

export type ToForwardWorker =
  { type: 'deliver'; delivery: AcceptedDelivery } | { type: 'close'; graceMs: number };

export type FromForwardWorker =
  | { type: 'done'; delivery: DeliveryRef }
  | { type: 'refused'; delivery: DeliveryRef; reason: string }
  | { type: 'retried' }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | { type: 'closed' };

/** dist/src/webhook/forward-worker.js, also when this module runs from src/ under the test runner. */
const FORWARD_WORKER_SCRIPT = [
  join(__dirname, 'forward-worker.js'),
  resolve(__dirname, '..', '..', 'dist', 'src', 'webhook', 'forward-worker.js'),
].find((file) => existsSync(file));

/** Past the stop's grace, what the thread may take to close its connections before it is terminated. */
const THREAD_CLOSE_MS = 2_000;

/**
 * Forwarding in a worker thread: the thread parses each delivery's body, runs the Forwarder and the handler
 * (Temporal and GitHub clients of its own); this thread, which accepts, only posts it each delivery and writes
 * the ledger and inbox records the thread reports. So a burst of accepts and the drain behind it use two cores,
 * and a slow or CPU-heavy bridge never delays an answer. The inbox is replayed into the thread on start.
 */
export function startForwardWorker(options: {
  inbox: DeliveryInbox;
  ledger: DeliveryLedger;
  handler: HandlerModule;
  concurrency: number;
  stats: ForwarderStats;
  backoff?: Backoff;
  logger?: MessageLog;
}): Forwarding {
  if (!FORWARD_WORKER_SCRIPT) throw new Error('forward-worker.js is not built: run `npm run build`');
  const logger = options.logger ?? silentLog;
  const state = { ...options, logger };
  const workerData: ForwardWorkerData = {
    handler: options.handler,
    concurrency: options.concurrency,
    ...(options.backoff ? { backoff: options.backoff } : {}),
  };
  const worker = new Worker(FORWARD_WORKER_SCRIPT, { workerData });
  const records = new Set<Promise<void>>();
  const track = (record: Promise<void>) => {
    records.add(record);
    void record.finally(() => records.delete(record));
  };
  let exited = false;
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  worker.on('message', (message: FromForwardWorker) => {
    if (message.type === 'done') {
      options.stats.forwarded++;
      track(settleHandedOn(state, message.delivery));
    } else if (message.type === 'refused') track(dropRefused(state, message.delivery, message.reason));
    else if (message.type === 'retried') options.stats.retried++;
    else if (message.type === 'log') logger[message.level](message.message);
    else onClosed();
  });
  worker.on('error', (error) =>
    logger.warn(
      `webhook: forwarding stopped: ${errorLine(error)}; what is queued stays in the inbox for the next start`,
    ),
  );
  worker.on('exit', () => {
    exited = true;
    onClosed();
  });
  const forwarding: Forwarding = {
    enqueue(delivery) {
      options.stats.pending++;
      if (!exited) worker.postMessage({ type: 'deliver', delivery } satisfies ToForwardWorker);
    },
    async close(graceMs = 0) {
      if (!exited) worker.postMessage({ type: 'close', graceMs } satisfies ToForwardWorker);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, graceMs + THREAD_CLOSE_MS)))]);
      clearTimeout(timer);
      // every record the thread reported before it closed, written before the inbox and ledger close
      await Promise.all([...records]);
      await worker.terminate();
    },
  };
  replayInbox(options.inbox, options.ledger, forwarding, options.logger);
  return forwarding;
}
