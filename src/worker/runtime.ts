import { Runtime } from '@temporalio/worker';
import type { TheLoopConfig } from '../config/schema';
import { CliError, EXIT } from '../errors';

/**
 * Installs the SDK's runtime before the worker connects. With `worker.metricsPort` it serves the SDK's metrics
 * (slots, pollers, task latencies, cache) for Prometheus; returns their URL, or null when they are off.
 */
export function installWorkerRuntime(config: TheLoopConfig): string | null {
  const { metricsPort, metricsHost } = config.worker;
  if (metricsPort === undefined) return null;
  const bindAddress = `${metricsHost}:${metricsPort}`;
  try {
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress } } } });
  } catch (error) {
    throw new CliError(
      `cannot serve metrics on ${bindAddress} (worker.metricsPort): ${(error as Error).message.split('\n')[0]}`,
      EXIT.failure,
    );
  }
  return `http://${bindAddress}/metrics`;
}
