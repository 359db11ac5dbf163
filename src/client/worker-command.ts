import { startWorkers } from '../worker/run-worker';
import { defaultHostId } from '../worker/queues';
import { connectClient } from './connection';
import type { CliContext } from './context';
import { resolveTarget } from './target';

/** `the-loop worker`: a worker in this process until SIGINT/SIGTERM (the SDK's shutdown signals). */
export async function runWorkerCommand(ctx: CliContext, readyFile?: string): Promise<void> {
  const target = resolveTarget(ctx.config, ctx.stateDir);
  // Fail in seconds with a clear message instead of letting the native connection retry forever.
  await (await connectClient(target)).close();
  const running = await startWorkers({
    target,
    taskQueue: ctx.config.temporal.taskQueue,
    deps: { config: ctx.config, stateDir: ctx.stateDir, hostId: defaultHostId(ctx.config) },
    readyFile,
    log: ctx.log,
  });
  await running.done;
}
