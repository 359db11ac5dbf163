import { loadConfig } from '../config/load';
import type { TheLoopConfig } from '../config/schema';
import { stateDir } from '../config/state-dir';
import { FileFormatError } from '../config/yaml-errors';
import { CliError, EXIT } from '../errors';
import type { ServiceContext } from './service';

export type GlobalOptions = {
  config?: string;
};

export interface CliContext extends ServiceContext {
  config: TheLoopConfig;
}

/** Loads the config once per command; a malformed file is bad input (exit 2), named by file, line and field. */
export function createContext(options: GlobalOptions): CliContext {
  try {
    const loaded = loadConfig(options.config);
    return {
      config: loaded.config,
      configPath: loaded.path,
      stateDir: stateDir(),
      log: (line) => process.stderr.write(`${line}\n`),
    };
  } catch (error) {
    if (error instanceof FileFormatError) throw new CliError(error.message, EXIT.usage);
    throw new CliError((error as Error).message, EXIT.usage);
  }
}
