import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { Forwarder, orderKey, startForwarder, type ForwarderStats } from '../../../src/webhook/forwarder';
import { DeliveryInbox, deliveryInboxFile, type QueuedDelivery } from '../../../src/webhook/inbox';
import { waitFor } from '../../support/wait';

function delivery(id: string, repo: string | null, number?: number): QueuedDelivery {
  const payload = repo ? { repository: { full_name: repo }, issue: number ? { number } : undefined } : {};
  return { deliveryId: id, event: 'issue_comment', keys: [`delivery:${id}`], payload, receivedAt: 0 };
}

const newStats = (): ForwarderStats => ({ forwarded: 0, retried: 0, pending: 0 });

describe('webhook forwarder', () => {
  it('orders by repository and issue or pull request number, anything else by its delivery id', () => {
    expect(orderKey(delivery('a', 'Codertocat/Hello-World', 3))).toBe('codertocat/hello-world#3');
    const pull = {
      ...delivery('b', null),
      payload: { repository: { full_name: 'o/r' }, pull_request: { number: 4 } },
    };
    expect(orderKey(pull)).toBe('o/r#4');
    expect(orderKey(delivery('c', 'o/r'))).toBe('delivery:c');
    expect(orderKey({ deliveryId: 'd', payload: 'not an object' })).toBe('delivery:d');
  });

  it('hands on one delivery per work item at a time, in arrival order, and at most `concurrency` at once', async () => {
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    let running = 0;
    let peak = 0;
    const stats = newStats();
    const forwarder = new Forwarder({
      concurrency: 3,
      stats,
      done: async () => undefined,
      handle: ({ deliveryId }) =>
        new Promise((resolve) => {
          started.push(deliveryId);
          peak = Math.max(peak, ++running);
          finish.set(deliveryId, () => {
            running--;
            resolve({ summary: 'ok' });
          });
        }),
    });
    // four deliveries on o/r#1, one each on five other items
    const ids = ['1a', 'x1', '1b', 'x2', '1c', 'x3', '1d', 'x4', 'x5'];
    for (const id of ids)
      forwarder.enqueue(
        id.startsWith('1') ? delivery(id, 'o/r', 1) : delivery(id, 'o/r', Number(id[1]) + 10),
      );
    expect(started).toEqual(['1a', 'x1', 'x2']);
    const release = async (id: string) => {
      finish.get(id)?.();
      await new Promise((r) => setImmediate(r));
    };
    for (const id of ['x1', 'x2', 'x3', 'x4']) await release(id);
    // x1..x4 done: 1a still runs, so 1b has not started; x5 took a free slot
    expect(started).toEqual(['1a', 'x1', 'x2', 'x3', 'x4', 'x5']);
    for (const id of ['1a', '1b', '1c', 'x5', '1d']) await release(id);
    await waitFor('all handed on', () => stats.forwarded === ids.length, 5_000, 1);
    expect(started.filter((id) => id.startsWith('1'))).toEqual(['1a', '1b', '1c', '1d']);
    expect(peak).toBe(3);
    expect(stats).toEqual({ forwarded: 9, retried: 0, pending: 0 });
    await forwarder.close();
  });

  it('retries a failed delivery with a capped exponential backoff, ahead of its lane, and drops nothing', async () => {
    const calls: string[] = [];
    let failuresLeft = 4;
    const stats = newStats();
    const logs: string[] = [];
    const forwarder = new Forwarder({
      concurrency: 4,
      stats,
      backoff: { initialMs: 20, maxMs: 60 },
      // the jitter at its top: each wait is the whole capped delay
      random: () => 1,
      logger: { info: (l) => logs.push(l), warn: (l) => logs.push(l) },
      done: async () => undefined,
      handle: async ({ deliveryId }) => {
        calls.push(deliveryId);
        if (deliveryId === 'first' && failuresLeft-- > 0) throw new Error('Temporal unavailable');
        return { summary: 'ok' };
      },
    });
    forwarder.enqueue(delivery('first', 'o/r', 1));
    forwarder.enqueue(delivery('second', 'o/r', 1));
    forwarder.enqueue(delivery('other', 'o/r', 2));
    await waitFor('all handed on', () => stats.forwarded === 3, 10_000, 5);
    expect(calls).toEqual(['first', 'other', 'first', 'first', 'first', 'first', 'second']);
    expect(stats).toEqual({ forwarded: 3, retried: 4, pending: 0 });
    // doubling from 20 ms, capped at 60
    expect(logs.map((l) => /attempt (\d), next in (\d+) ms/.exec(l)?.slice(1).join(':'))).toEqual([
      '1:20',
      '2:40',
      '3:60',
      '4:60',
    ]);
    expect(logs[3]).toContain(
      'delivery first (issue_comment) failed, attempt 4, next in 60 ms: Temporal unavailable',
    );
    await forwarder.close();
  });

  it('a delivery handed on whose record fails stays pending for the next start; close waits for records under way', async () => {
    const stats = newStats();
    const handled: string[] = [];
    const logs: string[] = [];
    const forwarder = new Forwarder({
      concurrency: 1,
      stats,
      logger: { info: (l) => logs.push(l), warn: (l) => logs.push(l) },
      done: async ({ deliveryId }) => {
        await new Promise((r) => setTimeout(r, 50));
        if (deliveryId === 'a') throw new Error('disk full');
      },
      handle: async ({ deliveryId }) => {
        handled.push(deliveryId);
        return { summary: 'ok' };
      },
    });
    forwarder.enqueue(delivery('a', 'o/r', 1));
    forwarder.enqueue(delivery('b', 'o/r', 1));
    await waitFor('both handed on', () => stats.forwarded === 2, 5_000, 1);
    await forwarder.close();
    expect(handled).toEqual(['a', 'b']);
    expect(stats).toEqual({ forwarded: 2, retried: 0, pending: 1 });
    expect(logs).toEqual([
      'webhook: delivery a (issue_comment) handed on but not recorded, so handed on again at the next start: disk full',
    ]);
  });

  it('replays unacknowledged deliveries after a restart, skips those the ledger has, and compacts acknowledged lines', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-forwarder-'));
    const file = deliveryInboxFile(stateDir);
    const big = 'x'.repeat(2000);
    let inbox = await DeliveryInbox.open(file, { compactBytes: 20_000 });
    let ledger = DeliveryLedger.open(deliveryLedgerFile(stateDir));
    const all = Array.from({ length: 30 }, (_, i) => ({ ...delivery(`d${i}`, 'o/r', i), payload: { big } }));
    for (const d of all) await inbox.append(d);
    // d0..d24 handed on and acknowledged; d25 handed on (in the ledger) but not acknowledged before the crash
    for (const d of all.slice(0, 26)) await ledger.commit(d.keys);
    for (const d of all.slice(0, 25)) await inbox.ack(d.deliveryId);
    await inbox.close();
    await ledger.close();
    expect(statSync(file).size).toBeLessThan(15_000); // rewritten with only what was unacknowledged

    inbox = await DeliveryInbox.open(file, { compactBytes: 20_000 });
    ledger = DeliveryLedger.open(deliveryLedgerFile(stateDir));
    expect(inbox.pending().map((d) => d.deliveryId)).toEqual(['d25', 'd26', 'd27', 'd28', 'd29']);
    const handled: string[] = [];
    const stats = newStats();
    const forwarder = startForwarder({
      inbox,
      ledger,
      concurrency: 2,
      stats,
      handle: async ({ deliveryId }) => {
        handled.push(deliveryId);
        return { summary: 'ok' };
      },
    });
    await waitFor('the replay', () => stats.forwarded === 4, 5_000, 5);
    expect(handled).toEqual(['d26', 'd27', 'd28', 'd29']);
    await forwarder.close();
    await inbox.close();
    await ledger.close();
    const reopened = await DeliveryInbox.open(file);
    expect(reopened.size).toBe(0);
    expect(readFileSync(deliveryLedgerFile(stateDir), 'utf8')).toContain('delivery:d29');
    await reopened.close();
  });

  it('a torn last line is skipped and named', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-inbox-'));
    const file = deliveryInboxFile(stateDir);
    const inbox = await DeliveryInbox.open(file);
    await inbox.append(delivery('whole', null));
    await inbox.close();
    appendFileSync(file, '{"deliveryId":"torn","ev');
    const problems: string[] = [];
    const again = await DeliveryInbox.open(file, { onBadLine: (p) => problems.push(p) });
    expect(again.pending().map((d) => d.deliveryId)).toEqual(['whole']);
    expect(problems).toEqual([`${file}:2: not JSON, skipped`]);
    await again.close();
  });
});
