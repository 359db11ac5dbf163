import { compareEnvironment, declaredEnvironment, readProcessEnvironment } from '../env';
import type { RegistryRecord } from '../schemas';
import { hostTmux, processEnv, type HostContext } from './context';

export interface EnvironmentDrift {
  running: number;
  stale: string[];
}

export async function environmentDrift(
  ctx: HostContext,
  records: RegistryRecord[],
): Promise<EnvironmentDrift> {
  const declared = declaredEnvironment(ctx.config, processEnv(ctx));
  const tmux = hostTmux(ctx, declared);
  let running = 0;
  const stale: string[] = [];
  for (const record of records) {
    if (record.status === 'closed' || record.tmux === null) continue;
    const pane = await tmux.pane(record.tmux.session);
    if (!pane || pane.dead) continue;
    running += 1;
    const actual = readProcessEnvironment(pane.pid, ctx.procRoot ?? '/proc');
    if (actual && compareEnvironment(actual, declared).length > 0) stale.push(record.work_item);
  }
  return { running, stale };
}
