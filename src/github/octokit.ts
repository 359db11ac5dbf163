import type { TheLoopConfig } from '../config/schema';
import type { GitHubClient } from './api';
import { resolveGitHubAuth } from './auth';
import { connectOctokit, type OctokitClientOptions } from './octokit-connect';
import { issueRequests } from './octokit-issues';
import { labelRequests } from './octokit-labels';
import { pullRequestRequests } from './octokit-pulls';

// The GitHub adapter: the GitHubClient port (api.ts) on Octokit, one file per group of requests.
export { describeAuth, resolveGitHubAuth } from './auth';

export function createOctokitGitHubClient(options: OctokitClientOptions): GitHubClient {
  const octokit = connectOctokit(options);
  return { ...issueRequests(octokit), ...labelRequests(octokit), ...pullRequestRequests(octokit) };
}

/** The client the CLI, the receiver and the worker use: config.github.apiUrl with the resolved credentials. */
export function createGitHubClientFromConfig(
  config: TheLoopConfig,
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; throttle?: boolean } = {},
): GitHubClient {
  return createOctokitGitHubClient({
    apiUrl: config.github.apiUrl,
    auth: resolveGitHubAuth(config, options.env),
    ...(options.log ? { log: options.log } : {}),
    ...(options.throttle !== undefined ? { throttle: options.throttle } : {}),
  });
}
