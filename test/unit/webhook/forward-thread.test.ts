import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { createReceiver, type Receiver } from '../../../src/webhook/receiver';
import { signBody } from '../../support/fake-github/sign';
import { issueCommentPayload } from '../../support/fake-github/payloads';
import { waitFor } from '../../support/wait';
import type { RecordedDelivery, RecordingHandlerOptions } from '../../support/recording-handler';

// The receiver with its forwarding in a worker thread, as `the-loop webhook` runs it: the handler is a compiled
// module (dist/test/support/recording-handler.js, built by `npm run build`) opened inside the thread.
const HANDLER = resolve(__dirname, '..', '..', '..', 'dist', 'test', 'support', 'recording-handler.js');
const SECRET = 'forward-thread-secret';

function headers(deliveryId: string, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-github-delivery': deliveryId,
    'x-hub-signature-256': signBody(SECRET, body),
  };
}

async function start(stateDir: string, file: string): Promise<{ receiver: Receiver; url: string }> {
  const options: RecordingHandlerOptions = { file };
  const receiver = createReceiver({
    secret: SECRET,
    path: '/hook',
    maxBodyBytes: 1024 * 1024,
    ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
    forwardConcurrency: 4,
    handlerModule: { module: HANDLER, options },
  });
  return { receiver, url: (await receiver.listen(0)).url };
}

const recorded = (file: string): RecordedDelivery[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as RecordedDelivery)
    : [];

describe('forwarding in a worker thread', () => {
  it('hands every accepted delivery on in another thread, in order per issue, and records it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-forward-thread-'));
    const file = join(stateDir, 'handled.jsonl');
    const { receiver, url } = await start(stateDir, file);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const payload = issueCommentPayload(`comment ${i}`);
      (payload.issue as Record<string, unknown>).number = (i % 3) + 1;
      const body = JSON.stringify(payload);
      const res = await fetch(url, { method: 'POST', body, headers: headers(`d-${i}`, body) });
      expect(res.status).toBe(202);
      ids.push(`d-${i}`);
    }
    const notJson = 'not json';
    expect(
      (await fetch(url, { method: 'POST', body: notJson, headers: headers('bad', notJson) })).status,
    ).toBe(202);
    await waitFor('the thread to hand everything on', () => receiver.stats.pending === 0, 10_000, 10);
    expect(receiver.stats).toMatchObject({ queued: 31, forwarded: 31, retried: 0 });
    const handled = recorded(file);
    // the body that is not JSON was dropped by the thread's parse, never handed to the handler
    expect(handled.map((d) => d.deliveryId).sort()).toEqual([...ids].sort());
    expect(new Set(handled.map((d) => d.threadId))).not.toContain(0);
    for (const number of [1, 2, 3]) {
      const order = handled.filter((d) => d.number === number).map((d) => Number(d.deliveryId.slice(2)));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    // a redelivery is a duplicate: the records the thread reported reached the ledger
    const body = JSON.stringify(issueCommentPayload('comment 0'));
    expect((await fetch(url, { method: 'POST', body, headers: headers('d-0', body) })).status).toBe(200);
    await receiver.close();
    const inbox = await DeliveryInbox.open(deliveryInboxFile(stateDir));
    expect(inbox.size).toBe(0);
    await inbox.close();
  });

  it('replays into the thread what the inbox holds unacknowledged', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-forward-thread-'));
    const file = join(stateDir, 'handled.jsonl');
    const inbox = await DeliveryInbox.open(deliveryInboxFile(stateDir));
    const body = Buffer.from(JSON.stringify(issueCommentPayload('queued before the stop')));
    await inbox.append({
      deliveryId: 'q-1',
      event: 'issue_comment',
      keys: ['delivery:q-1'],
      body,
      receivedAt: 1,
    });
    await inbox.close();
    const { receiver } = await start(stateDir, file);
    await waitFor('the replay', () => recorded(file).length === 1, 10_000, 10);
    expect(recorded(file).map((d) => d.deliveryId)).toEqual(['q-1']);
    await waitFor('the record', () => receiver.stats.pending === 0, 10_000, 10);
    await receiver.close();
    expect(readFileSync(deliveryLedgerFile(stateDir), 'utf8')).toContain('delivery:q-1');
  });
});
