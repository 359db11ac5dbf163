import { readFileSync } from 'node:fs';
import type { TheLoopConfig } from '../config/schema';

/** How the-loop authenticates to GitHub. The secret values never leave this object: no logging, no argv. */
export type GitHubAuth =
  | { kind: 'token'; token: string; source: 'GH_TOKEN' | 'GITHUB_TOKEN' | typeof GITHUB_TOKEN_FILE_ENV }
  | { kind: 'app'; appId: string; privateKey: string; installationId: number }
  | { kind: 'none' };

/**
 * The path of a 0600 file holding a token: what a hosted pane gets in place of GH_TOKEN, which is kept out of it
 * (written by src/work-item/github-auth.ts).
 */
export const GITHUB_TOKEN_FILE_ENV = 'THE_LOOP_GITHUB_TOKEN_FILE';

/**
 * GH_TOKEN, then GITHUB_TOKEN, then the token file a hosted pane is given, then a GitHub App from
 * github.{appId, privateKeyFile, installationId}.
 */
export function resolveGitHubAuth(config: TheLoopConfig, env: NodeJS.ProcessEnv = process.env): GitHubAuth {
  if (env.GH_TOKEN) return { kind: 'token', token: env.GH_TOKEN, source: 'GH_TOKEN' };
  if (env.GITHUB_TOKEN) return { kind: 'token', token: env.GITHUB_TOKEN, source: 'GITHUB_TOKEN' };
  const fromFile = tokenFromFile(env[GITHUB_TOKEN_FILE_ENV]);
  if (fromFile) return { kind: 'token', token: fromFile, source: GITHUB_TOKEN_FILE_ENV };
  const { appId, privateKeyFile, installationId } = config.github;
  if (appId && privateKeyFile && installationId !== undefined) {
    return { kind: 'app', appId, privateKey: readFileSync(privateKeyFile, 'utf8'), installationId };
  }
  return { kind: 'none' };
}

export function describeAuth(auth: GitHubAuth): string {
  switch (auth.kind) {
    case 'token':
      return `token from ${auth.source}`;
    case 'app':
      return `GitHub App ${auth.appId}, installation ${auth.installationId}`;
    case 'none':
      return 'unauthenticated';
  }
}

/** A missing or empty file is no token: the pane's token was removed, and the next source is tried. */
function tokenFromFile(file: string | undefined): string | null {
  if (!file) return null;
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
