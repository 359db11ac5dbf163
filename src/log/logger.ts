import pino from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogOptions } from './options';

export type Logger = pino.Logger;

/** Values that never reach a log line, wherever a request, its headers or a credential is logged. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-hub-signature-256"]',
  'req.headers["x-slack-signature"]',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  // a failed GitHub request logged as { err }: the request it made
  'err.request.headers.authorization',
  'authorization',
  'token',
  'secret',
  'password',
  '*.authorization',
  '*.token',
  '*.secret',
  '*.password',
];

/**
 * The process's logger, on stderr unless `destination` is given (stdout stays the command's output). JSON for
 * machines (a log file under `the-loop start`), else one readable line per entry, coloured on a terminal. Both
 * write synchronously: a line logged just before the process exits is not lost.
 */
export function createLogger(options: LogOptions, destination?: NodeJS.WritableStream): Logger {
  const base = { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (options.format === 'json') {
    return pino(base, destination ?? pino.destination({ dest: 2, sync: true }));
  }
  const pretty = pinoPretty({
    destination: destination ?? 2,
    sync: true,
    colorize: destination === undefined && process.stderr.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return pino(base, pretty);
}
