import { errorLine } from '../errors';
import { silentLog, type MessageLog } from '../log/message-log';
import type { DeliveryLedger } from './dedupe';
import { openDelivery, type AcceptedDelivery, type DeliveryInbox, type QueuedDelivery } from './inbox';
import type { DeliveryHandler } from './receiver';
import { backoffDelay, DEFAULT_BACKOFF, type Backoff } from './backoff';
import { STOP_GRACE_MS } from './limits';

export interface ForwarderStats {
  /** Deliveries handed on (the bridge acted on, ignored or refused them). */
  forwarded: number;
  /** Failed attempts, each tried again later. */
  retried: number;
  /** Deliveries in the inbox not yet handed on. */
  pending: number;
}

export const DEFAULT_FORWARD_CONCURRENCY = 16;

/**
 * Deliveries about one issue or pull request are handed on one after another, in arrival order: a comment must
 * not overtake the `the-loop start` before it. Anything else is ordered by nothing but itself.
 */
export function orderKey(delivery: Pick<QueuedDelivery, 'deliveryId' | 'payload'>): string {
  const payload = delivery.payload as {
    repository?: { full_name?: unknown };
    issue?: { number?: unknown };
    pull_request?: { number?: unknown };
  } | null;
  const repository = payload?.repository?.full_name;
  const number = payload?.issue?.number ?? payload?.pull_request?.number;
  if (typeof repository === 'string' && typeof number === 'number')
    return `${repository.toLowerCase()}#${number}`;
  return `delivery:${delivery.deliveryId}`;
}

interface Lane {
  key: string;
  deliveries: QueuedDelivery[];
  failures: number;
}

export interface ForwarderOptions {
  handle: DeliveryHandler;
  /** The delivery was handed on: record it so that it is neither handled again nor replayed. */
  done(delivery: QueuedDelivery): Promise<void>;
  concurrency: number;
  stats: ForwarderStats;
  backoff?: Backoff;
  /** The jitter's source: Math.random unless a test fixes it. */
  random?: () => number;
  logger?: MessageLog;
}

/**
 * Hands queued deliveries to the bridge: at most `concurrency` at once, one at a time per work item (a lane).
 * The bridge throws only for a failure of Temporal or GitHub, so nothing is dropped: a delivery leaves only once
 * handled. A failure backs off twice, each time capped exponentially with jitter: its lane waits (the failed
 * delivery stays ahead of its lane's later ones), and the whole forwarder pauses, then sends one attempt at a
 * time until one succeeds. With Temporal or GitHub unreachable every delivery would fail alike, so thousands
 * queued cost one attempt per backoff, not one each.
 */
export class Forwarder {
  private readonly lanes = new Map<string, Lane>();
  private ready: Lane[] = [];
  private running = 0;
  /** Failed attempts in a row across all lanes (counted once per pause); 0 again once one succeeds. */
  private failuresInARow = 0;
  private pause: NodeJS.Timeout | null = null;
  private closed = false;
  /** The stop's grace is over: what still runs is neither recorded nor acknowledged, so it is replayed. */
  private abandoned = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly attempts = new Set<Promise<void>>();
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly logger: MessageLog;

  constructor(private readonly options: ForwarderOptions) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? silentLog;
  }

  enqueue(delivery: QueuedDelivery): void {
    this.options.stats.pending++;
    const key = orderKey(delivery);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, deliveries: [], failures: 0 };
      this.lanes.set(key, lane);
      this.ready.push(lane);
    }
    lane.deliveries.push(delivery);
    this.pump();
  }

  /** Attempts allowed at once now: none while paused or closed, one while the last ones failed. */
  private get capacity(): number {
    if (this.closed || this.pause) return 0;
    return this.failuresInARow > 0 ? 1 : this.options.concurrency;
  }

  private pump(): void {
    while (this.running < this.capacity && this.ready.length > 0) {
      // a batch at a time keeps shift() off a long queue
      const batch = this.ready.splice(0, this.capacity - this.running);
      for (const lane of batch) this.attempt(lane);
    }
  }

  private attempt(lane: Lane): void {
    const delivery = lane.deliveries[0] as QueuedDelivery;
    this.running++;
    const attempt = this.options
      .handle({ event: delivery.event, deliveryId: delivery.deliveryId, payload: delivery.payload })
      .then(
        () => this.succeeded(lane, delivery),
        (error: unknown) => this.failed(lane, delivery, error),
      )
      .finally(() => {
        this.attempts.delete(attempt);
        this.running--;
        this.pump();
      });
    this.attempts.add(attempt);
  }

  /**
   * The lane goes on at once; the record is written meanwhile (its fsyncs are not on the lane's path). A record
   * that fails leaves the delivery unacknowledged: handed on again at the next start, where the workflow drops it.
   */
  private succeeded(lane: Lane, delivery: QueuedDelivery): void {
    this.failuresInARow = 0;
    if (this.pause) clearTimeout(this.pause);
    this.pause = null;
    if (this.abandoned) {
      this.logger.info(
        `webhook: delivery ${delivery.deliveryId} (${delivery.event}) handed on after the stop, so handed on again at the next start`,
      );
      return;
    }
    this.options.stats.forwarded++;
    const recorded = this.options
      .done(delivery)
      .then(
        () => {
          this.options.stats.pending--;
        },
        (error: unknown) => this.logger.warn(notRecorded(delivery, error)),
      )
      .finally(() => this.attempts.delete(recorded));
    this.attempts.add(recorded);
    lane.deliveries.shift();
    lane.failures = 0;
    if (lane.deliveries.length > 0) this.ready.push(lane);
    else this.lanes.delete(lane.key);
  }

  private failed(lane: Lane, delivery: QueuedDelivery, error: unknown): void {
    this.options.stats.retried++;
    lane.failures++;
    const delay = backoffDelay(this.backoff, lane.failures, this.random);
    this.logger.warn(
      `webhook: delivery ${delivery.deliveryId} (${delivery.event}) failed, attempt ${lane.failures}, next in ${delay} ms: ${errorLine(error)}`,
    );
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(lane);
      this.pump();
    }, delay);
    this.timers.add(timer);
    // the attempts that fail while paused are the ones that ran alongside: one failure for the whole pause
    if (this.pause) return;
    this.failuresInARow++;
    this.pause = setTimeout(
      () => {
        this.pause = null;
        this.pump();
      },
      backoffDelay(this.backoff, this.failuresInARow, this.random),
    );
  }

  /**
   * Starts nothing more and waits up to `graceMs` for the attempts and records under way; what is left stays
   * unacknowledged in the inbox for the next start, where it is replayed (the work-item workflow drops an event
   * id it has seen, should an attempt cut short have reached it).
   */
  async close(graceMs = STOP_GRACE_MS): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.pause) clearTimeout(this.pause);
    this.pause = null;
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'over'>((resolve) => {
      graceTimer = setTimeout(() => resolve('over'), graceMs);
    });
    // again while any remain: an attempt that succeeds adds its record
    while (this.attempts.size > 0)
      if ((await Promise.race([Promise.all([...this.attempts]), graceOver])) === 'over') break;
    clearTimeout(graceTimer);
    this.abandoned = true;
  }
}

/** How a receiver hands its accepted deliveries on: in its own event loop, or in a worker thread. */
export interface Forwarding {
  /** A delivery now durable in the inbox (and claimed in the ledger). */
  enqueue(delivery: AcceptedDelivery): void;
  /** Starts nothing more; waits up to `graceMs` for what is under way (see Forwarder.close). */
  close(graceMs?: number): Promise<void>;
}

type DeliveryRef = Pick<QueuedDelivery, 'deliveryId' | 'event' | 'keys'>;

const notRecorded = (delivery: DeliveryRef, error: unknown) =>
  `webhook: delivery ${delivery.deliveryId} (${delivery.event}) handed on but not recorded, so handed on again at the next start: ${errorLine(error)}`;

/**
 * A delivery is done once the ledger recorded it (a redelivery by GitHub is then a duplicate) and the inbox
 * acknowledged it. A record that fails leaves it unacknowledged: handed on again at the next start.
 */
export async function recordHandedOn(
  state: { inbox: DeliveryInbox; ledger: DeliveryLedger },
  delivery: DeliveryRef,
): Promise<void> {
  await state.ledger.commit(delivery.keys);
  await state.inbox.ack(delivery.deliveryId);
}

/** recordHandedOn, then the delivery leaves `pending`; a record that fails is logged. */
export function settleHandedOn(
  state: { inbox: DeliveryInbox; ledger: DeliveryLedger; stats: ForwarderStats; logger: MessageLog },
  delivery: DeliveryRef,
): Promise<void> {
  return recordHandedOn(state, delivery).then(
    () => {
      state.stats.pending--;
    },
    (error: unknown) => state.logger.warn(notRecorded(delivery, error)),
  );
}

/**
 * A signed body that is not JSON (or nests too deep) is dropped, recorded like one handed on: GitHub sends JSON,
 * so trying it again would fail alike. The receiver answered it 202 before parsing, which it leaves to forwarding.
 */
export function dropRefused(
  state: Parameters<typeof settleHandedOn>[0],
  delivery: DeliveryRef,
  reason: string,
): Promise<void> {
  state.logger.warn(`webhook: delivery ${delivery.deliveryId} (${delivery.event}) dropped: ${reason}`);
  state.stats.forwarded++;
  return settleHandedOn(state, delivery);
}

/**
 * Replays what the inbox holds unacknowledged: a delivery the ledger already has was handed on before a crash and
 * is only acknowledged; any other is claimed and handed on again (the work-item workflow drops an event id it has
 * seen, so a delivery signalled just before the crash is not acted on twice).
 */
export function replayInbox(
  inbox: DeliveryInbox,
  ledger: DeliveryLedger,
  forwarding: Forwarding,
  logger: MessageLog | undefined,
): void {
  let replayed = 0;
  for (const delivery of inbox.pending()) {
    if (ledger.claim(delivery.keys)) {
      replayed++;
      forwarding.enqueue(delivery);
    } else void inbox.ack(delivery.deliveryId).catch(() => undefined);
  }
  if (replayed > 0)
    logger?.info(`webhook: forwarding ${replayed} queued deliveries from before the last stop`);
}

/** The forwarder for a receiver, in the receiver's own event loop, with the inbox replayed into it. */
export function startForwarder(options: {
  inbox: DeliveryInbox;
  ledger: DeliveryLedger;
  handle: DeliveryHandler;
  concurrency: number;
  stats: ForwarderStats;
  backoff?: Backoff;
  random?: () => number;
  logger?: MessageLog;
}): Forwarding {
  const state = { ...options, logger: options.logger ?? silentLog };
  const forwarder = new Forwarder({ ...options, done: (delivery) => recordHandedOn(state, delivery) });
  const drops = new Set<Promise<void>>();
  const forwarding: Forwarding = {
    enqueue(accepted) {
      const delivery = openDelivery(accepted);
      if (!('refused' in delivery)) return forwarder.enqueue(delivery);
      options.stats.pending++;
      const dropped = dropRefused(state, accepted, delivery.refused).finally(() => drops.delete(dropped));
      drops.add(dropped);
    },
    async close(graceMs) {
      await forwarder.close(graceMs);
      // written before the inbox and ledger close: they are the records of drops already counted
      await Promise.all([...drops]);
    },
  };
  replayInbox(options.inbox, options.ledger, forwarding, options.logger);
  return forwarding;
}
