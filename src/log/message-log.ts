/**
 * The part of a logger that code run both by a process and inside activities takes: a pino logger fits, and so
 * does the SDK's activity `log`, so that in an activity the lines reach pino through the worker's Runtime logger.
 */
export interface MessageLog {
  info(message: string): void;
  warn(message: string): void;
}

/** For a caller that gave no logger (in-process test workers and receivers). */
export const silentLog: MessageLog = { info: () => undefined, warn: () => undefined };
