import type { GitHubClient } from '../github/api';
import { createGitHubClientFromConfig, resolveGitHubAuth } from '../github/octokit';
import type { ActivityDeps } from './deps';

/**
 * The worker's GitHub client for its work-item host activities (keyword comments, phase labels, gate comments, PR
 * labels), its GitHub activities and the waiting comment: the injected one, else one built from the worker's
 * config and credentials, else none when the worker has no credentials (the host then warns "no token").
 */
export function hostGitHub(
  deps: Pick<ActivityDeps, 'config' | 'github'>,
  warn: (line: string) => void,
): () => GitHubClient | undefined {
  let client: GitHubClient | null | undefined = deps.github;
  return () => {
    if (client === undefined)
      client =
        resolveGitHubAuth(deps.config).kind === 'none'
          ? null
          : createGitHubClientFromConfig(deps.config, { log: warn });
    return client ?? undefined;
  };
}
