import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Octokit } from 'octokit';
import { describeGitHubError } from '../../../src/github/describe-error';

// Real Octokit errors, from a local server that answers with a status, and from a port nothing listens on.
describe('a failed GitHub request as one line with the fix', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const status = Number(req.url?.split('/')[2] ?? 500);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: status === 401 ? 'Bad credentials' : 'Not Found' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function failure(baseUrl: string, owner: string): Promise<unknown> {
    const octokit = new Octokit({ baseUrl, retry: { enabled: false } });
    return octokit.rest.issues.get({ owner, repo: 'r', issue_number: 1 }).then(
      () => {
        throw new Error('the request should have failed');
      },
      (error: unknown) => error,
    );
  }

  it('401 names the credential settings', async () => {
    expect(describeGitHubError(await failure(base, '401'))).toMatch(
      /^GitHub refused the credentials \(401 Bad credentials.*GH_TOKEN or GITHUB_TOKEN/,
    );
  });

  it('404 says to check the ref and the token', async () => {
    expect(describeGitHubError(await failure(base, '404'))).toMatch(/^GitHub answered 404 .*check the ref/);
  });

  it('a refused connection names the host and the setting', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const line = describeGitHubError(await failure(`http://127.0.0.1:${port}`, 'x'));
    expect(line).toContain(`cannot reach GitHub at 127.0.0.1:${port} (connect ECONNREFUSED`);
    expect(line).toContain('github.apiUrl');
  });

  it('is null for anything that is not a GitHub request', () => {
    expect(describeGitHubError(new Error('boom'))).toBeNull();
    expect(describeGitHubError('text')).toBeNull();
  });
});
