import { homedir } from 'node:os';
import { join } from 'node:path';

/** THE_LOOP_STATE_DIR, else $XDG_STATE_HOME/the-loop, else ~/.local/state/the-loop. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.THE_LOOP_STATE_DIR) return env.THE_LOOP_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'the-loop');
  return join(homedir(), '.local', 'state', 'the-loop');
}
