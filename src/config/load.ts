import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { resolveProcessGraph } from './process';
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

/** --config, THE_LOOP_CONFIG, ./the-loop.yaml up to the git root, $XDG_CONFIG_HOME/the-loop/config.yaml. */
function locateConfig(
  explicit: string | undefined,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  if (explicit) return resolve(cwd, explicit);
  if (env.THE_LOOP_CONFIG) return resolve(cwd, env.THE_LOOP_CONFIG);
  const local = findUpToGitRoot(cwd, 'the-loop.yaml');
  if (local) return local;
  const xdg = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'the-loop', 'config.yaml');
  return existsSync(xdg) ? xdg : null;
}

export function loadConfig(
  explicit?: string,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): LoadedConfig {
  const path = locateConfig(explicit, cwd, env);
  if (path === null) return { config: configSchema.parse({}), path: null };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `${path}: cannot read the config file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: error },
    );
  }
  const config = parseYamlWithSchema(path, text, configSchema);
  // a graph file is read with the config, so a bad one is refused by every command alike, naming its own lines
  if (config.process?.file !== undefined) config.process = resolveProcessGraph(config.process, path);
  return { config, path };
}
