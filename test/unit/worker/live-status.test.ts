// The worker's live-status socket and `loopy status`'s end of it, over a real Unix socket: the CLI gets the state the
// worker's query returns, and null (so that it asks Temporal itself) whenever the worker cannot answer for it.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askLocalWorker } from '../../../src/cli/commands/loopy/worker-status';
import type { SessionStateFile } from '../../../src/session/schemas/state';
import { startLiveStatusServer, type LiveStatusServer } from '../../../src/worker/live-status-server';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';

const target = { address: '127.0.0.1:7233', namespace: 'default' };
const running = (id: string): SessionStateFile => ({
  ...newSessionState(id, '2026-12-06T20:00:00.000Z'),
  status: 'running',
  iteration: 7,
});

/** One raw request line, and the raw reply the server wrote before closing. */
function exchange(socketPath: string, line: string): Promise<string> {
  return new Promise((settle, fail) => {
    let reply = '';
    const socket = connect(socketPath, () => socket.write(line));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('end', () => settle(reply));
    socket.on('error', fail);
  });
}

describe('the live-status socket', () => {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-live-status-'));
  const socketPath = join(dir, 'live.sock');
  const asked: string[] = [];
  let server: LiveStatusServer;

  beforeAll(async () => {
    server = await startLiveStatusServer({
      socketPath,
      target,
      query: async (sessionId) => {
        asked.push(sessionId);
        if (sessionId === 'gone') throw new Error('workflow not found');
        return running(sessionId);
      },
    });
  });
  afterAll(() => server.close());

  it('is for the user alone (0600)', () => {
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
  });

  it("answers with the worker's query's state", async () => {
    const state = await askLocalWorker(socketPath, { sessionId: 's1', ...target });
    expect(state).toEqual(running('s1'));
    expect(asked).toContain('s1');
  });

  it('does not answer for another Temporal, nor ask its own', async () => {
    asked.length = 0;
    const state = await askLocalWorker(socketPath, { ...target, sessionId: 's2', namespace: 'other' });
    expect(state).toBeNull();
    expect(asked).toEqual([]);
  });

  it('a query that fails is no answer', async () => {
    expect(await askLocalWorker(socketPath, { sessionId: 'gone', ...target })).toBeNull();
  });

  it('refuses what is not one request line, in one line', async () => {
    const reply = JSON.parse(await exchange(socketPath, '{"sessionId": 3}\n')) as { error: string };
    expect(reply.error).toBe('bad-request');
    const long = JSON.parse(await exchange(socketPath, 'x'.repeat(5000))) as { error: string };
    expect(long.error).toBe('bad-request');
  });

  it('no worker listening is no answer', async () => {
    expect(await askLocalWorker(join(dir, 'nobody.sock'), { sessionId: 's1', ...target })).toBeNull();
  });

  it('a worker that replaces a dead one takes over the file its predecessor left', async () => {
    const left = join(dir, 'left.sock');
    writeFileSync(left, ''); // what a SIGKILLed worker leaves: the path, taken
    const next = await startLiveStatusServer({ socketPath: left, target, query: async (id) => running(id) });
    try {
      expect(await askLocalWorker(left, { sessionId: 's3', ...target })).toEqual(running('s3'));
    } finally {
      await next.close();
    }
  });
});
