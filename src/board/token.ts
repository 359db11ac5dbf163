import type { TheLoopConfig } from '../config/schema';

/**
 * The board's token from board.token, else THE_LOOP_BOARD_TOKEN; null without one. Never printed, never in argv: the
 * board process started by `the-loop start` gets it through its environment.
 */
export function boardToken(
  config: Pick<TheLoopConfig, 'board'>,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  return config.board.token ?? (env.THE_LOOP_BOARD_TOKEN || null);
}

/** A token short enough to guess is refused where it is read (zod's min for board.token; this for the variable). */
export const MIN_TOKEN_CHARS = 16;
