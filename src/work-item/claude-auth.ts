import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { readEnvFile } from './env';
import type { WorkItemDirs } from './paths';
import { privateDir, writePrivate } from './private-file';

const KEY_NAME = 'ANTHROPIC_API_KEY';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * How a hosted claude authenticates, as the user does. An API key (env.file's ANTHROPIC_API_KEY, else the worker's
 * own) reaches claude only through Claude Code's `apiKeyHelper`: the key goes into a 0600 file in a 0700 directory of
 * this machine's state, and a settings file passed with `--settings` names a helper that prints it. So the key is in
 * no argv, no tmux environment and no pane environment. Without a key, nothing is passed: an existing OAuth login
 * (~/.claude) is used as it is. Re-read at every spawn and every turn, so a rotated key takes effect at the next turn.
 */
export async function claudeAuthArgs(
  config: TheLoopConfig,
  dirs: WorkItemDirs,
  processEnv: NodeJS.ProcessEnv,
): Promise<string[]> {
  const settingsFile = await writeClaudeKey(config, dirs, processEnv);
  return settingsFile ? ['--settings', settingsFile] : [];
}

/**
 * Writes the key where claude's apiKeyHelper reads it (or removes it, gone from env.file), and the settings that name
 * the helper; the settings file, or null without a key. claude reads the helper at each model call (a TTL of 0), so a
 * key written again before a turn is the one that turn uses: a key fixed in env.file needs no new pane.
 */
export async function writeClaudeKey(
  config: TheLoopConfig,
  dirs: WorkItemDirs,
  processEnv: NodeJS.ProcessEnv,
): Promise<string | null> {
  const key = readEnvFile(config.env.file).get(KEY_NAME) ?? processEnv[KEY_NAME];
  const dir = join(dirs.stateRoot, 'local', 'claude-auth');
  const keyFile = join(dir, 'anthropic-api-key');
  const settingsFile = join(dir, 'settings.json');
  if (!key) {
    // a key removed from env.file must not linger on disk
    await rm(keyFile, { force: true });
    return null;
  }
  await privateDir(dir);
  await writePrivate(keyFile, key);
  const settings = {
    apiKeyHelper: `cat ${shellQuote(keyFile)}`,
    env: { CLAUDE_CODE_API_KEY_HELPER_TTL_MS: '0' },
  };
  await writePrivate(settingsFile, `${JSON.stringify(settings)}\n`);
  return settingsFile;
}
