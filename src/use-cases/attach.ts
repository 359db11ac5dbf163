import { declaredEnvironment, environmentWithout } from '../work-item/env';
import { hostDirs, locate } from '../work-item/host';
import { readRecord } from '../work-item/registry';
import { CliError, errorLine, EXIT } from '../errors';
import { Tmux } from '../work-item/tmux';
import { canonicalWorkItem, hostContext, type SessionsContext } from './context';

/**
 * Attaches this terminal to a work item's tmux session (read-only once it is closed), with the session
 * environment's kept-out names removed. `warn` hears why an attach became read-only.
 */
export async function attachSession(
  ctx: SessionsContext,
  workItemText: string,
  options: { readOnly: boolean; warn: (text: string) => void },
): Promise<void> {
  const workItem = canonicalWorkItem(workItemText);
  const host = hostContext(ctx);
  const record = await readRecord(await hostDirs(host), (await locate(host, workItem)).slug);
  if (!record) throw new CliError(`${workItem}: no session record on this machine`, EXIT.failure);
  if (!record.tmux) {
    throw new CliError(
      `${workItem}: no tmux session is recorded yet — its first dispatched event (or \`the-loop sessions start\`) spawns one`,
      EXIT.failure,
    );
  }
  const readOnly = options.readOnly || record.status === 'closed';
  if (record.status === 'closed' && !options.readOnly)
    options.warn(`${workItem} is closed: attaching read-only`);
  const env = environmentWithout(declaredEnvironment(ctx.config).keptOut);
  delete env.TMUX;
  const { socket, session } = record.tmux;
  const tmux = new Tmux(socket, env);
  const has = await tmux.hasSession(session).catch((error: unknown) => {
    throw new CliError(errorLine(error), EXIT.failure);
  });
  if (!has) {
    throw new CliError(
      `${workItem}: tmux session ${session} no longer exists on socket ${socket}${record.status === 'closed' ? '' : ' — `the-loop sessions start` brings it back'}`,
      EXIT.failure,
    );
  }
  const status = await tmux.attach(session, readOnly);
  if (status !== 0) throw new CliError(`tmux attach exited with ${status ?? 'a signal'}`, EXIT.failure);
}
