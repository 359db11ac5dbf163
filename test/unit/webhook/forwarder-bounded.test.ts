import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backoffDelay } from '../../../src/webhook/backoff';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { startForwarder, type ForwarderStats } from '../../../src/webhook/forwarder';
import { DeliveryInbox, deliveryInboxFile, type QueuedDelivery } from '../../../src/webhook/inbox';
import { createReceiver } from '../../../src/webhook/receiver';
import type { DeliveryHandler } from '../../../src/webhook/receiver';
import { signBody } from '../../support/fake-github/sign';
import { waitFor } from '../../support/wait';

// Forwarding while Temporal or GitHub is unreachable. The waits are for conditions; the backoff and the stop's
// grace are injected small so that none is long.

const QUEUED = 200;
const BOUND = 8;

function delivery(i: number): QueuedDelivery {
  const id = `d${i}`;
  const payload = { repository: { full_name: 'o/r' }, issue: { number: i } };
  return { deliveryId: id, event: 'issue_comment', keys: [`delivery:${id}`], payload, receivedAt: 0 };
}

const newStats = (): ForwarderStats => ({ forwarded: 0, retried: 0, pending: 0 });

/** A bridge whose target is down: counts the calls in flight; `hang` makes calls never settle, as a dead link. */
function unreachable() {
  const double = { calls: 0, inFlight: 0, peak: 0, peakAfterFirstFailure: 0, failed: false, hang: false };
  const handle: DeliveryHandler = () => {
    double.calls++;
    double.inFlight++;
    double.peak = Math.max(double.peak, double.inFlight);
    if (double.failed) double.peakAfterFirstFailure = Math.max(double.peakAfterFirstFailure, double.inFlight);
    if (double.hang) return new Promise(() => undefined);
    return new Promise((_, reject) =>
      setImmediate(() => {
        double.inFlight--;
        double.failed = true;
        reject(new Error('connect ECONNREFUSED 127.0.0.1:7233'));
      }),
    );
  };
  return { double, handle };
}

async function openState(stateDir: string) {
  return {
    inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
    ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
  };
}

describe('bounded forwarding', () => {
  it('backs off exponentially up to its cap, with jitter over the upper half', () => {
    const backoff = { initialMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelay(backoff, n, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelay(backoff, n, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
  });

  it(`with the target down, ${QUEUED} queued deliveries: at most ${BOUND} in flight, then one probe at a time; stop leaves them queued for the next start`, async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-forward-down-'));
    let { inbox, ledger } = await openState(stateDir);
    for (let i = 0; i < QUEUED; i++) await inbox.append(delivery(i));

    const { double, handle } = unreachable();
    const stats = newStats();
    const forwarder = startForwarder({
      inbox,
      ledger,
      handle,
      concurrency: BOUND,
      stats,
      backoff: { initialMs: 20, maxMs: 80 },
    });
    // the first burst, then pauses and single probes
    await waitFor('a few rounds of backing off', () => stats.retried >= BOUND + 4, 10_000, 5);
    expect(double.peak).toBeLessThanOrEqual(BOUND);
    expect(double.peakAfterFirstFailure).toBe(1);
    expect(double.calls).toBeLessThan(QUEUED);
    expect(stats).toMatchObject({ forwarded: 0, pending: QUEUED });

    // the link now hangs: the probe under way never settles, and stop does not wait for it past its grace
    double.hang = true;
    await waitFor('a probe that hangs', () => double.inFlight > 0, 10_000, 5);
    await forwarder.close(50);
    await inbox.close();
    await ledger.close();

    ({ inbox, ledger } = await openState(stateDir));
    expect(inbox.size).toBe(QUEUED);
    const handled = new Set<string>();
    const again = startForwarder({
      inbox,
      ledger,
      concurrency: BOUND,
      stats: newStats(),
      handle: async ({ deliveryId }) => {
        handled.add(deliveryId);
        return { summary: 'ok' };
      },
    });
    await waitFor('every queued delivery handed on after the restart', () => inbox.size === 0, 10_000, 5);
    expect(handled.size).toBe(QUEUED);
    await again.close();
    await inbox.close();
    await ledger.close();
  });

  it('the receiver stops within its grace with a sender mid-body and an attempt that hangs; the delivery is forwarded after', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-forward-stop-'));
    const secret = 'stop-secret';
    const start = async (handle: DeliveryHandler) => {
      const receiver = createReceiver({
        secret,
        path: '/hook',
        maxBodyBytes: 64 * 1024,
        ...(await openState(stateDir)),
        handle,
        limits: { stopGraceMs: 100, bodyDeadlineMs: 600_000 },
      });
      return { receiver, port: (await receiver.listen(0)).port };
    };
    const { double, handle } = unreachable();
    double.hang = true;
    const { receiver, port } = await start(handle);
    const body = JSON.stringify(delivery(1).payload);
    const res = await fetch(`http://127.0.0.1:${port}/hook`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'd1',
        'x-hub-signature-256': signBody(secret, body),
      },
    });
    expect(res.status).toBe(202);
    await waitFor('the attempt to hang', () => double.inFlight === 1, 10_000, 5);
    // a sender that sent its headers and half a body, and nothing more
    const slow = connect({ port, host: '127.0.0.1' });
    slow.on('error', () => undefined);
    slow.write(
      'POST /hook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: ping\r\n' +
        'x-github-delivery: slow\r\ncontent-length: 100\r\n\r\n{"zen":',
    );
    await waitFor('the slow request to be under way', () => receiver.stats.received === 2, 10_000, 5);

    await receiver.close();
    expect(receiver.stats).toMatchObject({ queued: 1, forwarded: 0, pending: 1 });
    slow.destroy();

    const handled: string[] = [];
    const again = await start(async ({ deliveryId }) => {
      handled.push(deliveryId);
      return { summary: 'ok' };
    });
    await waitFor('the delivery to be handed on', () => again.receiver.stats.pending === 0, 10_000, 5);
    expect(handled).toEqual(['d1']);
    await again.receiver.close();
  });
});
