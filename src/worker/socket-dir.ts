import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOCKET_PATH_LIMIT = 103;

/**
 * Where a worker's Unix sockets live: <state>/hooks when a socket path in it fits; otherwise a per-state-dir directory
 * under tmp. The hook channel creates it 0700: only the user can reach the sockets.
 */
export function hookChannelDir(stateDir: string): string {
  const preferred = join(stateDir, 'hooks');
  if (Buffer.byteLength(join(preferred, 'hooks.sock')) <= SOCKET_PATH_LIMIT) return preferred;
  const tag = createHash('sha256').update(stateDir).digest('hex').slice(0, 12);
  return join(tmpdir(), `the-loop-hooks-${process.getuid?.() ?? 'u'}-${tag}`);
}

/** The worker's live-status socket (worker/live-status-server.ts), beside the hook channel's. */
export function liveStatusSocket(stateDir: string): string {
  return join(hookChannelDir(stateDir), 'live.sock');
}
