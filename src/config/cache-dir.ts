import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * $XDG_CACHE_HOME/the-loop, else ~/.cache/the-loop: what the-loop builds or downloads once per machine (Temporal
 * binaries, the compiled supervisor, the CLI's compile cache). Node built-ins only: the harness launcher loads it.
 */
export function theLoopCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'the-loop');
}
