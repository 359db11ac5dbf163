// Apart from the logger itself: every command declares or reads these, and only a process that logs loads pino.

export const LOG_FORMATS = ['pretty', 'json'] as const;
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
type LogFormat = (typeof LOG_FORMATS)[number];
type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogOptions {
  format: LogFormat;
  level: LogLevel;
}

export const DEFAULT_LOG_OPTIONS: LogOptions = { format: 'pretty', level: 'info' };
