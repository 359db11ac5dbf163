import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { signBody } from '../../support/fake-github/sign';
import type { ReceiverMemory, ReceiverProcessSpec } from '../../support/receiver-process';
import { waitFor } from '../../support/wait';
import { assertFreshBuild } from '../../support/worker-processes';

// Hostile load against the receiver in its own process (dist/test/support/receiver-process.js), so that its
// memory can be measured. Every assertion is on what the server did (closed, answered, held in memory), never on
// how long it took: the waits are for conditions, with generous deadlines.

const REPO = resolve(__dirname, '..', '..', '..');
const SCRIPT = join(REPO, 'dist', 'test', 'support', 'receiver-process.js');
const SECRET = 'load-secret';
const MiB = 1024 * 1024;
const MAX_BODY = MiB;
const FLOOD = 300;
const limits = {
  maxConnections: 64,
  maxBufferedBytes: 16 * MiB,
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 3_000,
  keepAliveTimeoutMs: 1_000,
};

let child: ChildProcess;
let port: number;

function memory(): Promise<ReceiverMemory> {
  return new Promise((resolveMemory) => {
    const onMessage = (message: { type?: string; memory?: ReceiverMemory }) => {
      if (message.type !== 'memory' || !message.memory) return;
      child.off('message', onMessage);
      resolveMemory(message.memory);
    };
    child.on('message', onMessage);
    child.send({ type: 'memory' });
  });
}

function post(body: string, deliveryId: string): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
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
        res.on('end', () => resolveStatus(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw connection that records whether (and what) the server answered, and when it closed. */
function rawConnection(): Promise<{ socket: Socket; answer: () => string; closed: () => boolean }> {
  return new Promise((resolveConnection, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let closed = false;
    socket.on('data', (data: Buffer) => {
      if (answer.length < 200) answer += data.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    socket.once('connect', () => resolveConnection({ socket, answer: () => answer, closed: () => closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte at a time until the server closes the connection; returns how many bytes it took. */
async function trickle(connection: Awaited<ReturnType<typeof rawConnection>>, text: string): Promise<number> {
  let sent = 0;
  while (!connection.closed()) {
    if (sent >= text.length) throw new Error(`the server waited for all ${text.length} trickled bytes`);
    connection.socket.write(text[sent++] ?? '');
    await new Promise((r) => setTimeout(r, 100));
  }
  return sent;
}

beforeAll(async () => {
  assertFreshBuild(['test/support/receiver-process.ts', 'src/webhook/receiver.ts']);
  const spec: ReceiverProcessSpec = { secret: SECRET, maxBodyBytes: MAX_BODY, limits };
  child = fork(SCRIPT, [JSON.stringify(spec)], { execArgv: ['--expose-gc'], stdio: 'inherit' });
  port = await new Promise<number>((resolvePort, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver process exited ${code}`)));
    child.on('message', (message: { type?: string; port?: number }) => {
      if (message.type === 'listening' && message.port) resolvePort(message.port);
    });
  });
});

afterAll(() => {
  child?.kill();
});

describe('webhook receiver under hostile load (own process)', () => {
  it('cuts off a request whose headers are trickled byte by byte (headers timeout)', async () => {
    const connection = await rawConnection();
    const headers = `POST /hook HTTP/1.1\r\nhost: x\r\n${'x-padding: y\r\n'.repeat(2000)}\r\n`;
    const sent = await trickle(connection, headers);
    expect(sent).toBeLessThan(headers.length);
    expect(connection.answer()).toMatch(/^(HTTP\/1\.1 408|)/);
  }, 120_000);

  it('cuts off a request whose body is trickled byte by byte (request timeout)', async () => {
    const connection = await rawConnection();
    const body = JSON.stringify({ zen: 'x'.repeat(50_000) });
    connection.socket.write(
      'POST /hook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: ping\r\n' +
        `x-github-delivery: slow-body\r\nx-hub-signature-256: sha256=${'0'.repeat(64)}\r\n` +
        `content-length: ${body.length}\r\n\r\n`,
    );
    const sent = await trickle(connection, body);
    expect(sent).toBeLessThan(body.length);
    expect(connection.answer()).toMatch(/^HTTP\/1\.1 408/);
  }, 120_000);

  it('answers 503 on a connection beyond the cap, and 413 from Content-Length before any body', async () => {
    const idle = await Promise.all(Array.from({ length: limits.maxConnections }, () => rawConnection()));
    await waitFor('the idle connections to be counted', async () => {
      return (await memory()).connections >= limits.maxConnections;
    });
    await expect(post('{"zen":"capped"}', 'capped')).resolves.toBe(503);
    for (const { socket } of idle) socket.destroy();
    await waitFor('the idle connections to be gone', async () => (await memory()).connections <= 1);
    expect(await post('{"zen":"uncapped"}', 'uncapped')).toBe(202);

    const declared = await rawConnection();
    declared.socket.write(
      'POST /hook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: ping\r\n' +
        `x-github-delivery: declared\r\ncontent-length: ${MAX_BODY + 1}\r\n\r\n`,
    );
    // not a byte of the body is sent: the answer can only come from the declared length
    await waitFor('the answer to the declared length', () => declared.answer().length > 0);
    expect(declared.answer()).toMatch(/^HTTP\/1\.1 413/);
    declared.socket.destroy();
  }, 120_000);

  it(`${FLOOD} held-open connections each declaring 1 MB: bounded peak memory, back near baseline after`, async () => {
    expect(await post('{"zen":"before"}', 'before-flood')).toBe(202);
    const baseline = await memory();

    const connections = await Promise.all(Array.from({ length: FLOOD }, () => rawConnection()));
    const part = Buffer.alloc(MAX_BODY / 2, 0x20);
    const written = connections.map(
      ({ socket }, i) =>
        new Promise<void>((resolveWrite) => {
          socket.write(
            'POST /hook HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: ping\r\n' +
              `x-github-delivery: flood-${i}\r\ncontent-length: ${MAX_BODY}\r\n\r\n`,
          );
          // resolved once the half body is handed to the kernel, or the server closed the connection
          socket.write(part, () => resolveWrite());
          socket.once('close', () => resolveWrite());
        }),
    );
    await Promise.all(written);
    const refusedOrClosed = () =>
      connections.filter((c) => c.answer().startsWith('HTTP/1.1 503') || c.closed()).length;
    // all but those whose bytes fit the server's budget are answered 503 or dropped
    const kept = limits.maxBufferedBytes / MAX_BODY;
    await waitFor(
      'the flood beyond the budget to be refused',
      () => FLOOD - refusedOrClosed() <= kept,
      60_000,
    );
    const refused = refusedOrClosed();
    const busy = connections.filter((c) => c.answer().startsWith('HTTP/1.1 503')).length;

    const loaded = await memory();
    for (const { socket } of connections) socket.destroy();
    const after = await waitFor(
      'the receiver to let go of every flood connection',
      async () => {
        const m = await memory();
        return m.connections === 0 && m;
      },
      60_000,
    );
    const settled = await waitFor(
      'the receiver to return near its baseline memory',
      async () => {
        const m = await memory();
        return m.rssBytes < baseline.rssBytes + 40 * MiB && m;
      },
      60_000,
      1_000,
    );
    console.log(
      `flood: baseline ${mb(baseline.rssBytes)}, peak ${mb(loaded.peakRssBytes)}, ` +
        `after ${mb(after.rssBytes)}, settled ${mb(settled.rssBytes)}; ${refused}/${FLOOD} refused or closed`,
    );
    // 300 half bodies of 1 MB would be 150 MB on their own; the budget holds at most 16 MB of them
    expect(loaded.peakRssBytes).toBeLessThan(baseline.rssBytes + 100 * MiB);
    expect(busy).toBeGreaterThan(0);
    // and it still serves
    expect(await post('{"zen":"after"}', 'after-flood')).toBe(202);
  }, 180_000);
});

function mb(bytes: number): string {
  return `${Math.round(bytes / MiB)} MB`;
}
