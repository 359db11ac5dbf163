import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { GITHUB_TOKEN_FILE_ENV } from '../github/auth';
import { readEnvFile } from './env';
import type { WorkItemDirs } from './paths';
import { privateDir, writePrivate } from './private-file';

/**
 * How the-loop's own commands in a hosted pane (`the-loop item show`, `pr create`, the link-pr hook) reach GitHub
 * while GH_TOKEN and GITHUB_TOKEN are kept out of the pane: the token (env.file's, else the worker's own) goes into
 * a 0600 file in a 0700 directory of this machine's state, and the pane gets only the file's path, as claude gets
 * its API key through apiKeyHelper. A GitHub App needs nothing: its settings are in the config. Re-written at every
 * launch, so a rotated token takes effect at the next one, and a removed one is removed.
 */
export async function githubTokenFileEnv(
  config: TheLoopConfig,
  dirs: WorkItemDirs,
  processEnv: NodeJS.ProcessEnv,
): Promise<{ name: string; value: string }[]> {
  const declared = readEnvFile(config.env.file);
  const token =
    declared.get('GH_TOKEN') ??
    declared.get('GITHUB_TOKEN') ??
    processEnv.GH_TOKEN ??
    processEnv.GITHUB_TOKEN;
  const dir = join(dirs.stateRoot, 'local', 'github-auth');
  const tokenFile = join(dir, 'token');
  if (!token) {
    await rm(tokenFile, { force: true });
    return [];
  }
  await privateDir(dir);
  await writePrivate(tokenFile, `${token}\n`);
  return [{ name: GITHUB_TOKEN_FILE_ENV, value: tokenFile }];
}
