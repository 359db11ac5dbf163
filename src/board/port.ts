import type { TheLoopConfig } from '../config/schema';
import { CliError, EXIT } from '../errors';

/**
 * The board's port: THE_LOOP_BOARD_PORT when set, else board.port; 0 is off. The variable lets one environment (a
 * test run, a second state directory on the same machine) move or turn off every board it starts without a config
 * file each.
 */
export function boardPort(
  config: Pick<TheLoopConfig, 'board'>,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const fromEnv = env.THE_LOOP_BOARD_PORT;
  if (fromEnv === undefined || fromEnv === '') return config.board.port;
  const port = Number(fromEnv);
  if (!/^\d+$/.test(fromEnv) || port > 65535)
    throw new CliError(
      `THE_LOOP_BOARD_PORT must be a port from 0 (off) to 65535, not '${fromEnv}'`,
      EXIT.usage,
    );
  return port;
}
