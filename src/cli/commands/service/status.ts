import type { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { GlobalOptions } from '../../../service/context';
import type { Io } from '../../io';
import { loadContext } from '../../load-context';
import { describeStatus } from './status-lines';
import { declareStatusCommand, type StatusOptions } from './status-command';

/** Declared in status-command.ts, apart from this run: the start-up snapshot of `loopy status` runs its own. */
export function declareCommand(program: Command<[], GlobalOptions>): void {
  declareStatusCommand(program, run);
}

/**
 * `the-loop status`: the server, the worker and the other parts, and what the harness runs get. `loopy status`, or
 * either with a session: that goal session (loopy/status.ts).
 */
export async function run(
  session: string | undefined,
  invokedAsLoopy: boolean,
  options: StatusOptions,
  io: Io,
): Promise<number> {
  if (session !== undefined || invokedAsLoopy) {
    const { run: goalSessionStatus } = await import('../loopy/status.js');
    return goalSessionStatus(session, options, io);
  }
  const ctx = await loadContext(options);
  const { serviceStatus } = await import('../../../service/service.js');
  const { staleEnvironmentLine } = await import('../../../work-item/status-line.js');
  const { describeContainment, probeContainment } = await import('../../../harness/containment.js');
  const { describeSupervisor, supervisorInPlace } = await import('../../../harness/build-supervisor.js');
  const status = await serviceStatus(ctx);
  // What the worker's harness runs get: probed from the worker's cgroup when one runs.
  const containment = await probeContainment(status.worker?.running ? status.worker.pid : null);
  const supervisor = supervisorInPlace();
  if (options.format === 'json') io.out(JSON.stringify({ ...status, containment, supervisor }, null, 2));
  else {
    for (const line of describeStatus(status)) io.out(line);
    io.out(describeContainment(containment));
    io.out(describeSupervisor(supervisor));
    const stale = await staleEnvironmentLine(ctx.config, ctx.stateDir);
    if (stale) io.out(stale);
  }
  // A worker that does not answer stalls every session: scripts and monitors see it in the exit code.
  return status.worker?.unresponsive ? EXIT.failure : EXIT.ok;
}
