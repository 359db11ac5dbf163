import { loadConfig } from '../config/load';
import type { TheLoopConfig } from '../config/schema';
import { stateDir } from '../config/state-dir';
import { FileFormatError } from '../config/yaml-errors';
import { CliError, EXIT } from '../errors';
import type { Logger } from '../log/logger';
import { DEFAULT_LOG_OPTIONS, type LogOptions } from '../log/options';
import type { ServiceContext } from './service';

export type GlobalOptions = {
  config?: string;
};

export interface CliContext extends ServiceContext {
  config: TheLoopConfig;
}

/**
 * Loads the config once per command; a malformed file is bad input (exit 2), named by file, line and field. The
 * logger is made on first use: most commands never log, and loading pino costs them about 0.1 s.
 */
export function createContext(options: GlobalOptions, log: LogOptions = DEFAULT_LOG_OPTIONS): CliContext {
  let loaded: ReturnType<typeof loadConfig>;
  let state: string;
  try {
    loaded = loadConfig(options.config);
    state = stateDir();
  } catch (error) {
    if (error instanceof FileFormatError) throw new CliError(error.message, EXIT.usage);
    throw new CliError((error as Error).message, EXIT.usage);
  }
  let logger: Logger | undefined;
  return {
    config: loaded.config,
    configPath: loaded.path,
    stateDir: state,
    get logger() {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
      return (logger ??= (require('../log/logger') as typeof import('../log/logger')).createLogger(log));
    },
  };
}
