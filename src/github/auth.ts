import { readFileSync } from 'node:fs';
import type { TheLoopConfig } from '../config/schema';

/** How the-loop authenticates to GitHub. The secret values never leave this object: no logging, no argv. */
export type GitHubAuth =
  | { kind: 'token'; token: string; source: 'GH_TOKEN' | 'GITHUB_TOKEN' }
  | { kind: 'app'; appId: string; privateKey: string; installationId: number }
  | { kind: 'none' };

/** GH_TOKEN, then GITHUB_TOKEN, then a GitHub App from github.{appId, privateKeyFile, installationId}. */
export function resolveGitHubAuth(config: TheLoopConfig, env: NodeJS.ProcessEnv = process.env): GitHubAuth {
  if (env.GH_TOKEN) return { kind: 'token', token: env.GH_TOKEN, source: 'GH_TOKEN' };
  if (env.GITHUB_TOKEN) return { kind: 'token', token: env.GITHUB_TOKEN, source: 'GITHUB_TOKEN' };
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
