import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { INPUT_FILE_LIMITS, readInputFile } from './read-input-file';
import { resolveProcessGraph } from './process-graph-file';
import { configSchema, type TheLoopConfig } from './schema';
import { parseYamlWithSchema } from './yaml-errors';

export interface LoadedConfig {
  config: TheLoopConfig;
  /** The file it came from, or null for the built-in defaults. */
  path: string | null;
}

function findUpToGitRoot(start: string, name: string): string | null {
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(dir, '.git'))) return null;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Where a config file came from, named when it cannot be read: the flag, the variable, or neither. */
interface LocatedConfig {
  path: string;
  source: '--config' | 'THE_LOOP_CONFIG' | 'config file';
}

/** --config, THE_LOOP_CONFIG, ./the-loop.yaml up to the git root, $XDG_CONFIG_HOME/the-loop/config.yaml. */
function locateConfig(
  explicit: string | undefined,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): LocatedConfig | null {
  if (explicit) return { path: resolve(cwd, explicit), source: '--config' };
  if (env.THE_LOOP_CONFIG) return { path: resolve(cwd, env.THE_LOOP_CONFIG), source: 'THE_LOOP_CONFIG' };
  const local = findUpToGitRoot(cwd, 'the-loop.yaml');
  if (local) return { path: local, source: 'config file' };
  const xdg = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'the-loop', 'config.yaml');
  return existsSync(xdg) ? { path: xdg, source: 'config file' } : null;
}

export function loadConfig(
  explicit?: string,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): LoadedConfig {
  const located = locateConfig(explicit, cwd, env);
  if (located === null) return { config: configSchema.parse({}), path: null };
  const { path } = located;
  const text = readInputFile({ flag: located.source, path, maxBytes: INPUT_FILE_LIMITS.config });
  const config = parseYamlWithSchema(path, text, configSchema);
  // a graph file is read with the config, so a bad one is refused by every command alike, naming its own lines
  if (config.process?.file !== undefined) config.process = resolveProcessGraph(config.process, path);
  return { config, path };
}
