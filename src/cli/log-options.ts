import { Option } from '@commander-js/extra-typings';
import { DEFAULT_LOG_OPTIONS, LOG_FORMATS, LOG_LEVELS, type LogOptions } from '../log/options';

/**
 * `--log-format` and `--log-level`, declared by the commands that run a long-lived process (`worker`, `webhook`,
 * `dev`, `start`): `.addOption(logFormatOption()).addOption(logLevelOption())`.
 */
export function logFormatOption() {
  return new Option(
    '--log-format <format>',
    'log lines on stderr: pretty (readable) or json (the processes `start` runs always log json to their files)',
  )
    .choices(LOG_FORMATS)
    .default(DEFAULT_LOG_OPTIONS.format);
}

export function logLevelOption() {
  return new Option('--log-level <level>', 'least severe level logged (`start` passes it on)')
    .choices(LOG_LEVELS)
    .default(DEFAULT_LOG_OPTIONS.level);
}

/** The two flags' values as the logger takes them. */
export function logOptionsOf(options: {
  logFormat: LogOptions['format'];
  logLevel: LogOptions['level'];
}): LogOptions {
  return { format: options.logFormat, level: options.logLevel };
}
