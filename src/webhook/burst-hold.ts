import type { ForwarderStats, Forwarding } from './forwarder';
import type { AcceptedDelivery } from './inbox';

/**
 * How long no request must be in flight before held deliveries are handed on. Not 0: the receiver answers a whole
 * group of deliveries at once when their inbox write is on disk, so during a burst nothing is in flight for the
 * moment it takes the senders to send their next requests; a lone delivery waits this long.
 */
export const BURST_QUIET_MS = 25;

/**
 * Forwarding yields to accepting: a delivery accepted while other requests are still being received waits until
 * none has been for BURST_QUIET_MS, or until it has waited `maxHoldMs`, and is then handed to forwarding with every
 * other one held.
 *
 * Why: on a small host the drain (parsing, the Temporal signal, the server's own work for it) wants the same cores
 * as accepting, and a burst of deliveries was accepted at less than half the rate of a server that only checks
 * signatures, because the drain ran beside it. Accepting has a deadline (GitHub gives up after 10 s and counts a
 * failure); forwarding has none, since what waits is already durable in the inbox. A lone delivery is released
 * BURST_QUIET_MS after its own answer is out, so outside bursts nothing waits long; during one, forwarding starts
 * when it ends, or after `maxHoldMs` of a burst that does not end, so a sustained flood is still forwarded.
 */
export class BurstHold implements Forwarding {
  private held: AcceptedDelivery[] = [];
  private inFlight = 0;
  private deadline: NodeJS.Timeout | null = null;
  private quiet: NodeJS.Timeout | null = null;

  /** `stats.pending` counts what is held too: a delivery held is in the inbox and not yet handed on. */
  constructor(
    private readonly forwarding: Forwarding,
    private readonly stats: ForwarderStats,
    private readonly maxHoldMs: number,
  ) {}

  /** A request began; the function returned says it is over (answered, or its connection gone), once. */
  requestStarted(): () => void {
    this.inFlight++;
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = null;
    let over = false;
    return () => {
      if (over) return;
      over = true;
      this.inFlight--;
      if (this.inFlight === 0 && this.held.length > 0)
        this.quiet ??= setTimeout(() => this.release(), BURST_QUIET_MS);
    };
  }

  /** Called while the delivery's own request is still in flight: its end starts the quiet wait, if it is the last. */
  enqueue(delivery: AcceptedDelivery): void {
    this.held.push(delivery);
    this.stats.pending++;
    if (this.inFlight === 0 || this.maxHoldMs <= 0) return this.release();
    this.deadline ??= setTimeout(() => this.release(), this.maxHoldMs);
  }

  private release(): void {
    if (this.deadline) clearTimeout(this.deadline);
    if (this.quiet) clearTimeout(this.quiet);
    this.deadline = null;
    this.quiet = null;
    const held = this.held;
    this.held = [];
    this.stats.pending -= held.length;
    for (const delivery of held) this.forwarding.enqueue(delivery);
  }

  /** What is held is handed on first, so the stop's grace covers it as it does what was already forwarding. */
  async close(graceMs?: number): Promise<void> {
    this.release();
    await this.forwarding.close(graceMs);
  }
}
