import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import type { ReceiverLimits } from '../../../src/webhook/limits';
import { peerOf } from '../../../src/webhook/peer';
import { createReceiver, type Receiver } from '../../../src/webhook/receiver';
import { signBody } from '../../support/fake-github/sign';
import { waitFor } from '../../support/wait';

// Slow senders against the receiver in this process. Every wait is for a condition (an answer, bytes read by the
// server), never for a time; the deadlines are injected small so that none of them is long.

const SECRET = 'fair-secret';
const KiB = 1024;
const MAX_BODY = 8 * KiB;
/** Another address than the valid deliveries' 127.0.0.1: Linux routes all of 127/8 to the loopback. */
const SLOW_PEER = '127.0.0.2';

let receiver: Receiver;
let port: number;
/** The server's side of each connection, by the client's port. */
const serverSockets = new Map<number, Socket>();

async function start(limits: Partial<ReceiverLimits>): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-fair-'));
  receiver = createReceiver({
    secret: SECRET,
    path: '/hook',
    maxBodyBytes: MAX_BODY,
    ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
    handle: () => Promise.resolve({ summary: 'ok' }),
    limits: { stopGraceMs: 100, ...limits },
  });
  receiver.server.on('connection', (socket: Socket) => serverSockets.set(socket.remotePort ?? 0, socket));
  ({ port } = await receiver.listen(0));
}

afterEach(async () => {
  await receiver.close();
  serverSockets.clear();
});

/** A signed delivery from `localAddress` (GitHub delivers from many addresses); resolves to the answer's status. */
function post(body: string, deliveryId: string, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-github-event': 'ping',
          'x-github-delivery': deliveryId,
          'x-hub-signature-256': signBody(SECRET, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw connection from `localAddress` sending a chunked delivery it never finishes. */
async function slowSender(id: string, localAddress: string) {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let answer = '';
  let closed = false;
  let written = 0;
  socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise((resolve) => socket.once('connect', resolve));
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      written += Buffer.byteLength(text);
      socket.write(text, () => resolve());
    });
  await write(
    'POST /hook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: ping\r\n' +
      `x-github-delivery: ${id}\r\nx-hub-signature-256: sha256=${'0'.repeat(64)}\r\n` +
      'transfer-encoding: chunked\r\n\r\n',
  );
  return {
    socket,
    status: () => /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? null,
    closed: () => closed,
    /** Whether the server has read every byte written (or answered, after which it reads no more). */
    settled: () => answer !== '' || (serverSockets.get(socket.localPort ?? 0)?.bytesRead ?? 0) >= written,
    chunk: (text: string) => write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`),
  };
}

describe('a fair webhook receiver', () => {
  it('slow chunked bodies from one peer cannot hold the budget that valid deliveries need', async () => {
    // a 64 KiB budget, a quarter of it per peer; no body deadline within this test
    await start({ maxBufferedBytes: 64 * KiB, bodyDeadlineMs: 600_000 });
    const slow = await Promise.all(Array.from({ length: 8 }, (_, i) => slowSender(`slow-${i}`, SLOW_PEER)));
    // 7 KiB each, a KiB at a time, never finished: 56 KiB if all were held
    for (let k = 0; k < 7; k++) await Promise.all(slow.map((s) => s.chunk('x'.repeat(KiB))));
    await waitFor('the server to read or answer every slow sender', () => slow.every((s) => s.settled()));

    // 17 valid deliveries of 2 KiB at once, each from an address of its own: 34 KiB, more than the 8 KiB the
    // slow senders would leave of the budget if they could hold it all
    const bodies = Array.from({ length: 17 }, (_, i) => JSON.stringify({ zen: 'y'.repeat(2 * KiB), i }));
    const statuses = await Promise.all(
      bodies.map((body, i) => post(body, `valid-${i}`, `127.0.0.${10 + i}`)),
    );
    expect(statuses).toEqual(bodies.map(() => 202));

    // the slow peer held at most its share, 16 KiB: a sender whose next chunk went past it was refused
    const answered = slow.map((s) => s.status()).filter((status) => status !== null);
    expect(answered.length).toBeGreaterThanOrEqual(6);
    for (const status of answered) expect(['408', '413', '503']).toContain(status);
    expect(receiver.stats.rejected[503]).toBe(answered.length);
  });

  it('a body that never finishes is answered 408 at the body deadline, and its bytes go back', async () => {
    // the whole budget is one peer's share: a held body would refuse the next delivery
    await start({ maxBufferedBytes: 8 * KiB, maxPeerBufferedBytes: 8 * KiB, bodyDeadlineMs: 300 });
    const slow = await slowSender('never-done', '127.0.0.1');
    await slow.chunk('x'.repeat(6 * KiB));
    await waitFor('the slow sender to be answered', async () => {
      if (slow.status() === null) await slow.chunk('x');
      return slow.status() !== null;
    });
    expect(slow.status()).toBe('408');
    await waitFor('the slow connection to be closed', () => slow.closed());
    expect(receiver.stats.rejected[408]).toBe(1);
    const body = JSON.stringify({ zen: 'z'.repeat(7 * KiB) });
    expect(await post(body, 'after-slow')).toBe(202);
  });

  it('a request whose headers never end is cut off by the headers timeout', async () => {
    await start({ headersTimeoutMs: 300 });
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    let closed = false;
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    socket.write('POST /hook HTTP/1.1\r\nhost: x\r\n');
    await waitFor('the server to close the connection', async () => {
      if (!closed) socket.write('x-padding: y\r\n');
      return closed;
    });
    expect(answer).toMatch(/^(HTTP\/1\.1 408|)/);
  });

  it('charges an IPv6 peer by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(peerOf('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(peerOf('2001:db8:0:12::1')).toBe('2001:db8:0:12::/64');
    expect(peerOf('2001:DB8:0000:0012:ab:cd:ef:1')).toBe('2001:db8:0:12::/64');
    expect(peerOf('::1')).toBe('0:0:0:0::/64');
    expect(peerOf('192.0.2.1')).toBe('192.0.2.1');
    expect(peerOf(undefined)).toBe('unknown');
  });
});
