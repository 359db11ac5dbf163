import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The plugin's hook library, as the hooks run it (plain ESM, no build, no types).
// @ts-expect-error -- an .mjs file without a declaration
import { sendReport, SOCKET_ENV, TOKEN_FILE_ENV } from '../../../plugin/hooks/lib.mjs';

// A turn that ends while the worker restarts: the report waits for the new worker's socket instead of being lost.
describe("a hook report while the worker's socket is away", () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-retry-'));
  const socketPath = join(dir, 'hooks.sock');
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'secret-token\n');
  const env = { [SOCKET_ENV]: socketPath, [TOKEN_FILE_ENV]: tokenFile };
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('is delivered once the socket comes back within the retry window', async () => {
    const received: string[] = [];
    const sent = sendReport({ event: 'turn-ended' }, env, 1000, 10_000) as Promise<{ status?: number }>;
    // The worker comes back after the first attempts have failed.
    await new Promise((r) => setTimeout(r, 600));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        received.push(`${req.headers.authorization} ${text}`);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server?.listen(socketPath, r));
    expect(await sent).toMatchObject({ status: 204 });
    expect(received).toEqual(['Bearer secret-token {"event":"turn-ended"}']);
  });

  it('a worker that dies while it handles the report (the connection reset) is asked again, by the next one', async () => {
    const received: string[] = [];
    let first = true;
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if (first) {
          // killed mid-request: the socket goes without an answer
          first = false;
          req.socket.destroy();
          return;
        }
        received.push(text);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server?.listen(socketPath, r));
    const sent = (await sendReport({ event: 'turn-ended' }, env, 1000, 10_000)) as { status?: number };
    expect(sent).toMatchObject({ status: 204 });
    expect(received).toEqual(['{"event":"turn-ended"}']);
  });

  it('gives up with the reason once the window has passed', async () => {
    const away = { ...env, [SOCKET_ENV]: join(dir, 'never.sock') };
    const result = (await sendReport({ event: 'turn-ended' }, away, 1000, 300)) as { error?: string };
    expect(result.error).toMatch(/ENOENT|ECONNREFUSED/);
  });
});
