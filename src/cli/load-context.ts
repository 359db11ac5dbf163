import type { LogOptions } from '../log/options';
import type { CliContext, GlobalOptions } from '../service/context';

/** The config and state directory, loaded once a command runs: `--help` and `--version` never load them. */
export async function loadContext(options: GlobalOptions, log?: LogOptions): Promise<CliContext> {
  const { createContext } = await import('../service/context.js');
  return createContext({ config: options.config }, log);
}
