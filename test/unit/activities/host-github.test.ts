import { hostGitHub } from '../../../src/activities/host-github';
import { configSchema } from '../../../src/config/schema';
import type { GitHubClient } from '../../../src/github/api';

// A production worker is given no GitHub client: the host activities must build their own from its credentials,
// or the keyword comments, phase labels and gate comments are silently skipped ("no token").
describe('the GitHub client of the work-item host activities', () => {
  const config = configSchema.parse({});
  const saved = { GH_TOKEN: process.env.GH_TOKEN, GITHUB_TOKEN: process.env.GITHUB_TOKEN };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  it('is built once from the worker credentials when none is injected', () => {
    process.env.GH_TOKEN = 'ghp_worker_token';
    const github = hostGitHub({ config }, () => undefined);
    const client = github();
    expect(client).toBeDefined();
    expect(typeof client?.postComment).toBe('function');
    expect(github()).toBe(client);
  });

  it('is none when the worker has no credentials, and the injected one when a test gives it', () => {
    delete process.env.GH_TOKEN;
    delete process.env.GITHUB_TOKEN;
    expect(hostGitHub({ config }, () => undefined)()).toBeUndefined();
    const injected = { postComment: jest.fn() } as unknown as GitHubClient;
    expect(hostGitHub({ config, github: injected }, () => undefined)()).toBe(injected);
  });
});
