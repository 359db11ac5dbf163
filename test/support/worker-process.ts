// A worker in its own process, so that tests and benchmarks can kill -9 it (compiled to
// dist/test/support/worker-process.js by `npm run build`). Configured by one JSON argument:
//   {address, taskQueue, hostId, bundlePath, config, faultPoint?, readyFile, shutdownGraceTime?}
// `config` is a partial the-loop.yaml object (parsed with the real schema).
import { writeFileSync } from 'node:fs';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { configSchema } from '../../src/config/schema';
import { createLogger } from '../../src/log/logger';
import { startWorkers } from '../../src/worker/run-worker';

export interface WorkerProcessSpec {
  address: string;
  taskQueue: string;
  hostId: string;
  bundlePath?: string;
  config: Record<string, unknown>;
  faultPoint?: string;
  stateDir: string;
  readyFile: string;
  shutdownGraceTime?: string;
}

async function main(): Promise<void> {
  const raw = process.argv[2];
  if (!raw) throw new Error('usage: worker-process <json spec>');
  const spec = JSON.parse(raw) as WorkerProcessSpec;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = configSchema.parse(spec.config);
  const running = await startWorkers({
    target: {
      address: spec.address,
      namespace: 'default',
      connectionOptions: { address: spec.address },
      source: 'config',
    },
    taskQueue: spec.taskQueue,
    // its own log lines go to its log file (stderr), read when a test that killed it is stuck
    logger: createLogger({ format: 'pretty', level: 'info' }),
    deps: {
      config,
      stateDir: spec.stateDir,
      hostId: spec.hostId,
      ...(spec.faultPoint ? { faultPoint: spec.faultPoint } : {}),
    },
    ...(spec.bundlePath ? { workflowBundlePath: spec.bundlePath } : {}),
    ...(spec.shutdownGraceTime ? { shutdownGraceTime: spec.shutdownGraceTime } : {}),
  });
  writeFileSync(spec.readyFile, JSON.stringify({ pid: process.pid, hostQueue: running.hostQueue }));
  await running.done;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`worker-process: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
