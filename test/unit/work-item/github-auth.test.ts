import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { githubTokenFileEnv } from '../../../src/work-item/github-auth';
import { workItemDirs } from '../../../src/work-item/paths';

describe("a hosted pane's GitHub token file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-token-file-'));
  const envFile = join(dir, 'session.env');
  const config = configSchema.parse({ env: { file: envFile } });
  const dirs = workItemDirs(config, join(dir, 'state'));
  const tokenFile = join(dirs.stateRoot, 'local', 'github-auth', 'token');

  it("holds env.file's token (before the worker's own) in a 0600 file; the pane gets only its path", async () => {
    writeFileSync(envFile, 'GH_TOKEN=ghp_from_env_file\n');
    const env = await githubTokenFileEnv(config, dirs, { GH_TOKEN: 'ghp_worker' });
    expect(env).toEqual([{ name: 'THE_LOOP_GITHUB_TOKEN_FILE', value: tokenFile }]);
    expect(readFileSync(tokenFile, 'utf8')).toBe('ghp_from_env_file\n');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dirs.stateRoot, 'local', 'github-auth')).mode & 0o777).toBe(0o700);
  });

  it("falls back to the worker's GH_TOKEN or GITHUB_TOKEN, and removes the file once no token is left", async () => {
    writeFileSync(envFile, '');
    await githubTokenFileEnv(config, dirs, { GITHUB_TOKEN: 'ghp_worker_github' });
    expect(readFileSync(tokenFile, 'utf8')).toBe('ghp_worker_github\n');
    expect(await githubTokenFileEnv(config, dirs, {})).toEqual([]);
    expect(existsSync(tokenFile)).toBe(false);
  });
});
