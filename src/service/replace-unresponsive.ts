import { rm } from 'node:fs/promises';
import { isAlive } from './dev-server';
import { runningProcess } from './process-facts';
import { servicePaths, type ServiceProcess } from './service-processes';
import { workerSilence, type Silence } from './worker-liveness';
import { requireDuration } from '../config/duration';
import type { TheLoopConfig } from '../config/schema';
import type { Logger } from '../log/logger';
import { pollUntil } from '../process/poll-until';
import { terminate } from '../process/terminate';
import { CliError } from '../errors';

export interface ReplacedWorker extends Silence {
  pid: number;
}

interface Context {
  config: TheLoopConfig;
  stateDir: string;
  logger: Logger;
}

/** How `start` reports a worker it replaced, on stdout or in a log line. */
export function describeReplaced(replaced: ReplacedWorker): string {
  const stopped = replaced.stopped ? ', stopped' : '';
  return `killed an unresponsive worker (pid ${replaced.pid}${stopped}, no answer since ${replaced.since})`;
}

/**
 * The silence of `worker` once the grace period has passed since it last answered, or null as soon as it answers.
 * The grace period is `worker.heartbeatTimeout`: a worker silent that long has lost its turns to Temporal's activity
 * heartbeat timeout already, so replacing it costs no turn that waiting would have saved.
 */
async function silentPastGrace(ctx: Context, worker: ServiceProcess): Promise<Silence | null> {
  let latest: Silence | null = null;
  const silenceNow = async (): Promise<Silence | null> => {
    const facts = runningProcess(worker.pid);
    // gone meanwhile: nothing answers, and the last silence stands
    return facts ? workerSilence(ctx.stateDir, facts) : latest;
  };
  latest = await silenceNow();
  if (latest === null) return null;
  const graceMs = requireDuration(ctx.config.worker.heartbeatTimeout, 'worker.heartbeatTimeout');
  const waitMs = Date.parse(latest.since) + graceMs - Date.now();
  if (waitMs > 0) {
    ctx.logger.info(
      `the worker (pid ${worker.pid}) has not answered since ${latest.since}; waiting up to ${Math.ceil(waitMs / 1000)} s (worker.heartbeatTimeout) for it before replacing it`,
    );
    const answered = await pollUntil(
      async () => {
        latest = await silenceNow();
        return latest === null;
      },
      { timeoutMs: waitMs, intervalMs: 500 },
    );
    if (answered) return null;
  }
  return latest;
}

/**
 * Kills this state directory's worker when it has not answered for the grace period (SIGKILL: it reaches a stopped
 * process, and a stuck event loop would never act on SIGTERM) and clears its files, so that `start` starts a new
 * one; null when it answers. A `the-loop dev` is someone's foreground process: it is refused, not killed.
 */
export async function replaceUnresponsive(
  ctx: Context,
  worker: ServiceProcess,
): Promise<ReplacedWorker | null> {
  const silence = await silentPastGrace(ctx, worker);
  if (silence === null) return null;
  const { pid } = worker;
  if (worker.command !== 'worker') {
    const resume = silence.stopped ? `resume it (\`kill -CONT ${pid}\`) or ` : '';
    throw new CliError(
      `\`the-loop ${worker.command}\` (pid ${pid}) runs the worker of ${ctx.stateDir} and has not answered since ${silence.since} — ${resume}stop it, then start again`,
    );
  }
  const killed = await terminate(
    { pid },
    { graceMs: 0, politeSignals: [], killWaitMs: 60_000, intervalMs: 50, isRunning: () => isAlive(pid) },
  );
  if (!killed.settled) {
    throw new CliError(`the unresponsive worker (pid ${pid}) did not die of SIGKILL within a minute`);
  }
  const paths = servicePaths(ctx.stateDir);
  for (const file of [paths.workerPid, paths.workerReady, paths.workerHeartbeat])
    await rm(file, { force: true });
  return { pid, ...silence };
}
