import { App, Octokit } from 'octokit';
import type { GitHubAuth } from './auth';

export interface OctokitClientOptions {
  apiUrl: string;
  auth: GitHubAuth;
  /** Retry and throttling are on by default; tests against the local fake may turn throttling off. */
  throttle?: boolean;
  retries?: number;
  /** Where Octokit's own warnings go (never secrets: Octokit does not log credentials). */
  log?: (line: string) => void;
}

export type OctokitInstance = InstanceType<typeof Octokit>;

/** The Octokit the request groups share, built on first use (a GitHub App's installation token is fetched then). */
export type Connect = () => Promise<OctokitInstance>;

/** Octokit with retry and throttling, logging only its warnings; an App installation that failed is retried. */
export function connectOctokit(options: OctokitClientOptions): Connect {
  const log = options.log ?? (() => undefined);
  const quiet = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => log(`github: ${message}`),
    error: (message: string) => log(`github: ${message}`),
  };
  const base = {
    baseUrl: options.apiUrl.replace(/\/+$/, ''),
    log: quiet,
    retry: { retries: options.retries ?? 3 },
    throttle: {
      enabled: options.throttle ?? true,
      onRateLimit: (
        retryAfter: number,
        req: { method: string; url: string; request: { retryCount: number } },
      ) => {
        log(`github: rate limit reached for ${req.method} ${req.url}; retrying after ${retryAfter} s`);
        return req.request.retryCount < 2;
      },
      onSecondaryRateLimit: (
        retryAfter: number,
        req: { method: string; url: string; request: { retryCount: number } },
      ) => {
        log(`github: secondary rate limit for ${req.method} ${req.url}; retrying after ${retryAfter} s`);
        return req.request.retryCount < 2;
      },
    },
  };

  let instance: Promise<OctokitInstance> | null = null;
  return function octokit(): Promise<OctokitInstance> {
    if (instance) return instance;
    const { auth } = options;
    if (auth.kind === 'app') {
      const app = new App({
        appId: auth.appId,
        privateKey: auth.privateKey,
        Octokit: Octokit.defaults(base),
      });
      instance = app.getInstallationOctokit(auth.installationId) as Promise<OctokitInstance>;
      instance.catch(() => {
        instance = null;
      });
    } else {
      instance = Promise.resolve(
        new Octokit({ ...base, ...(auth.kind === 'token' ? { auth: auth.token } : {}) }),
      );
    }
    return instance;
  };
}
