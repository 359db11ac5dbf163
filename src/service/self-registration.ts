import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../session/atomic';
import { CliError } from '../errors';
import { acceptsConnections } from '../temporal/connection';
import { readPidFile } from './process-facts';
import { liveServiceProcess, pidFileOf, type ServiceRole } from './service-processes';

const ROLE_NAMES: Record<ServiceRole, string> = {
  server: 'a Temporal dev server',
  worker: 'a worker',
  webhook: 'a webhook receiver',
  board: 'a board',
  supervisor: 'a supervisor',
};

/**
 * Refuses when `role` already runs for this state directory in another process: one service per state
 * directory, whoever started it.
 */
export async function refuseSecond(stateDir: string, role: ServiceRole, self = process.pid): Promise<void> {
  const other = await liveServiceProcess(stateDir, role);
  if (other === null || other.pid === self) return;
  const what = ROLE_NAMES[role];
  const how = other.command === 'server' ? '' : `, \`the-loop ${other.command}\``;
  throw new CliError(
    `${what} for ${stateDir} already runs (pid ${other.pid}${how}) — use it, or \`the-loop stop\` first`,
  );
}

/**
 * Writes `pid` into the role's pid file, where `start`, `status`, `stop` and `loopy run` look; the returned function
 * removes the file again while it still names that pid.
 */
export function registerPid(stateDir: string, role: ServiceRole, pid = process.pid): () => Promise<void> {
  const file = pidFileOf(stateDir, role);
  writeFileAtomic(file, `${pid}\n`);
  return async () => {
    if ((await readPidFile(file)) === pid) await rm(file, { force: true });
  };
}

/**
 * Refuses to start a dev server on an address another process already serves: the start-up check would take that
 * process's answers for the new server's while the new one fails to bind.
 */
export async function refuseForeignListener(address: string, stateDir: string): Promise<void> {
  if (await acceptsConnections(address)) {
    throw new CliError(
      `${address} is in use by a process that is not the Temporal server of ${stateDir} — stop it, or set temporal.devServer.port`,
    );
  }
}
