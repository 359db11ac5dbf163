import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** host:port to give the client instead of the server's. */
  address: string;
  /** The server becomes unreachable: open connections are reset and new ones closed at once. */
  cut(): void;
  /** Connections go through again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a server, for tests where the server must be unreachable from one client (a worker) while
 * it stays up for everyone else: a Temporal frontend whose history service restarts looks like this to a worker.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = target.split(':') as [string, string];
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined); // a reset is what a cut is
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
