import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';
import type { TheLoopConfig } from '../config/schema';
import { CliError, errorLine, EXIT } from '../errors';
import type { Logger } from '../log/logger';
import { LOG_LEVELS } from '../log/options';

/**
 * Installs the SDK's runtime before the worker connects; the SDK allows it once per process. Every line the SDK
 * logs (its own, the Core's, and what activities and workflows log through `log`) goes to `logger`. With
 * `worker.metricsPort` it also serves the SDK's metrics (slots, pollers, task latencies, cache) for Prometheus;
 * returns their URL, or null when they are off.
 */
export function installWorkerRuntime(config: TheLoopConfig, logger: Logger): string | null {
  const { metricsPort, metricsHost } = config.worker;
  const bindAddress = metricsPort === undefined ? null : `${metricsHost}:${metricsPort}`;
  const level = sdkLevel(logger.level);
  try {
    Runtime.install({
      logger: new DefaultLogger(level, writeTo(logger)),
      telemetryOptions: {
        // The Core's INFO is per-poller chatter: it logs from WARN unless debugging.
        logging: {
          filter: { core: level === 'TRACE' || level === 'DEBUG' ? level : 'WARN' },
          forward: {},
        },
        ...(bindAddress ? { metrics: { prometheus: { bindAddress } } } : {}),
      },
    });
  } catch (error) {
    if (bindAddress === null) throw error;
    throw new CliError(
      `cannot serve metrics on ${bindAddress} (worker.metricsPort): ${errorLine(error)}`,
      EXIT.failure,
    );
  }
  return bindAddress && `http://${bindAddress}/metrics`;
}

/** Each SDK log entry as one pino line, at its level, with the SDK's fields (`sdkComponent`, `workflowId`, …). */
export function writeTo(logger: Logger): (entry: LogEntry) => void {
  return ({ level, message, meta }) =>
    logger[level.toLowerCase() as Lowercase<LogLevel>](meta ?? {}, message);
}

/** The SDK's name for pino's level; pino filters again, so a level the SDK lacks (fatal, silent) maps to ERROR. */
function sdkLevel(level: string): LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level) ? (level.toUpperCase() as LogLevel) : 'ERROR';
}
