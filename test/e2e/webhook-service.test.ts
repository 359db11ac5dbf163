import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { isAlive } from '../../src/service/dev-server';
import { freePort } from '../support/dev-server';
import { postDelivery } from '../support/fake-github/sign';
import { repoPollerWorkflowId } from '../../src/workflows/repo-poller/workflow';
import { BIN, runCli } from '../support/cli';
import { issueCommentPayload } from '../support/fake-github/payloads';
import { FakeGitHub } from '../support/fake-github/server';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

const SECRET = 'e2e-webhook-secret-never-printed';
const REPO = 'Codertocat/Hello-World';

async function post(
  url: string,
  event: string,
  delivery: string,
  payload: unknown,
  secret = SECRET,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await postDelivery(url, secret, { event, id: delivery, payload });
  return { status: res.status, json: JSON.parse(res.text) as Record<string, unknown> };
}

/** The embedded dev server, the receiver and one repository's poller, all on the given ports. */
function writeServiceConfig(
  stateDir: string,
  ports: { port: number; uiPort: number; hook: number; apiUrl: string },
): string {
  const configFile = join(stateDir, 'the-loop.yaml');
  writeFileSync(
    configFile,
    [
      'temporal:',
      '  devServer:',
      `    port: ${ports.port}`,
      `    uiPort: ${ports.uiPort}`,
      'github:',
      `  apiUrl: ${ports.apiUrl}`,
      'webhook:',
      `  port: ${ports.hook}`,
      'poller:',
      '  interval: 1h',
      `  repositories: [${REPO}]`,
      '',
    ].join('\n'),
  );
  return configFile;
}

describe('the-loop start runs the webhook receiver and the pollers (embedded dev server)', () => {
  const fake = new FakeGitHub();
  let stateDir: string;
  let env: NodeJS.ProcessEnv;
  let webhookPort: number;
  let temporalPort: number;

  beforeAll(async () => {
    await fake.start();
    fake.token = 'ghp_e2e_token';
    fake.repo(REPO).permissions.set('codertocat', 'admin');
    stateDir = mkdtempSync(join(tmpdir(), 'the-loop-svc-webhook-'));
    const [port, uiPort, hook] = [await freePort(), await freePort(), await freePort()];
    temporalPort = port;
    webhookPort = hook;
    const configFile = writeServiceConfig(stateDir, { port, uiPort, hook, apiUrl: fake.url });
    env = {
      THE_LOOP_STATE_DIR: stateDir,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
      THE_LOOP_WEBHOOK_SECRET: SECRET,
      GH_TOKEN: 'ghp_e2e_token',
      TEMPORAL_ADDRESS: '',
    };
  });

  afterAll(async () => {
    await runCli(['stop'], { env });
    await fake.stop();
  });

  const pidOf = (name: string) => Number(readFileSync(join(stateDir, `${name}.pid`), 'utf8').trim());

  it('start → signed deliveries acted on → status → idempotent start → stop leaves no process', async () => {
    const start = await runCli(['start'], { env });
    expect(start.stderr).not.toMatch(/Error/);
    expect(start.code).toBe(0);
    const url = `http://127.0.0.1:${webhookPort}/github/webhook`;
    expect(start.stdout).toContain(`started the webhook receiver (pid ${pidOf('webhook')}) on ${url}`);
    const webhookPid = pidOf('webhook');
    const workerPid = pidOf('worker');
    const serverPid = pidOf('temporal');

    // the secret reached the receiver through its environment only
    const argv = readFileSync(`/proc/${webhookPid}/cmdline`, 'utf8');
    expect(argv).toContain('webhook');
    expect(argv).not.toContain(SECRET);
    expect(readFileSync(`/proc/${webhookPid}/environ`, 'utf8').split('\0')).toContain(
      `THE_LOOP_WEBHOOK_SECRET=${SECRET}`,
    );

    const ping = await post(url, 'ping', 'e2e-ping-1', { zen: 'Keep it logically awesome.', hook_id: 1 });
    expect(ping).toEqual({ status: 202, json: { status: 'queued', delivery: 'e2e-ping-1' } });
    const comment = await post(
      url,
      'issue_comment',
      'e2e-comment-1',
      issueCommentPayload('a note', 'Codertocat'),
    );
    expect(comment.status).toBe(202);
    // answered once queued; the forwarder's outcome is in the receiver's log
    const webhookLog = join(stateDir, 'logs', 'webhook.log');
    await waitFor('the comment handed on', () =>
      readFileSync(webhookLog, 'utf8').includes(
        'webhook issue_comment e2e-comment-1: not-running github:codertocat/hello-world#1',
      ),
    );
    expect(
      (await post(url, 'issue_comment', 'e2e-comment-1', issueCommentPayload('a note', 'Codertocat'))).json,
    ).toMatchObject({ status: 'duplicate' });
    expect((await post(url, 'ping', 'e2e-bad', { zen: 'x' }, 'wrong-secret')).status).toBe(401);
    // the receiver asked the fake GitHub about the commenter, with the token from the environment
    const permission = fake.requests.find((r) => r.path.endsWith('/collaborators/Codertocat/permission'));
    expect(permission?.authorization).toMatch(/ghp_e2e_token/);
    const ledger = await waitFor('both deliveries recorded as handled', () => {
      const text = readFileSync(join(stateDir, 'webhook', 'deliveries.jsonl'), 'utf8');
      return text.includes('delivery:e2e-ping-1') && text.includes('delivery:e2e-comment-1') && text;
    });
    expect(ledger).toContain('delivery:e2e-comment-1');
    // handed on and acknowledged: nothing left to replay
    await waitFor('the ping acknowledged in the inbox', () =>
      readFileSync(join(stateDir, 'webhook', 'inbox.jsonl'), 'utf8').includes('{"ack":"e2e-ping-1"}'),
    );

    // the poller came up with the service (the worker started it) and polled the fake GitHub
    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    const described = await new Client({ connection }).workflow
      .getHandle(repoPollerWorkflowId(REPO))
      .describe();
    expect(described.status.name).toBe('RUNNING');
    await connection.close();
    await waitFor('the poller listing the repository', () =>
      fake.requests.some(
        (r) => r.method === 'GET' && /\/repos\/codertocat\/hello-world\/issues\?/i.test(r.path),
      ),
    );

    const status = await runCli(['status'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`webhook: +running \\(pid ${webhookPid}, ${url.replace(/[.]/g, '\\.')}`),
    );
    const json = JSON.parse((await runCli(['status', '--format', 'json'], { env })).stdout) as {
      webhook: { running: boolean; url: string; pid: number };
    };
    expect(json.webhook).toMatchObject({ running: true, url, pid: webhookPid });

    const again = await runCli(['start'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`the webhook receiver is already running (pid ${webhookPid}) on ${url}`);
    expect(pidOf('webhook')).toBe(webhookPid);

    for (const out of [start.stdout, start.stderr, status.stdout, again.stdout])
      expect(out).not.toContain(SECRET);
    expect(readFileSync(join(stateDir, 'logs', 'webhook.log'), 'utf8')).not.toContain(SECRET);

    const stop = await runCli(['stop'], { env });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(/webhook: stopped \(sigterm\)/);
    for (const pid of [webhookPid, workerPid, serverPid]) expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(stateDir, 'webhook.pid'))).toBe(false);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(stateDir);
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('the-loop dev runs the same ingress in the foreground', () => {
  it('serves signed deliveries and the pollers until Ctrl-C, then stops everything it started', async () => {
    const fake = new FakeGitHub();
    await fake.start();
    fake.token = 'ghp_dev_token';
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-dev-'));
    const [port, uiPort, hook] = [await freePort(), await freePort(), await freePort()];
    const configFile = writeServiceConfig(stateDir, { port, uiPort, hook, apiUrl: fake.url });
    const dev = spawn(process.execPath, [BIN, 'dev'], {
      env: {
        ...process.env,
        THE_LOOP_STATE_DIR: stateDir,
        THE_LOOP_CONFIG: configFile,
        THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
        THE_LOOP_WEBHOOK_SECRET: SECRET,
        GH_TOKEN: 'ghp_dev_token',
        TEMPORAL_ADDRESS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    dev.stdout.on('data', (d: Buffer) => (output += d.toString()));
    dev.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
    try {
      const url = `http://127.0.0.1:${hook}/github/webhook`;
      await waitFor('the receiver', () => output.includes(`webhook receiver on ${url}`), 90_000);
      expect(output).toContain('pollers running: repo-poller/');
      const ping = await post(url, 'ping', 'dev-ping-1', { zen: 'Design for failure.', hook_id: 2 });
      expect(ping).toEqual({ status: 202, json: { status: 'queued', delivery: 'dev-ping-1' } });
      await waitFor('the ping handed on and acknowledged', () =>
        readFileSync(join(stateDir, 'webhook', 'inbox.jsonl'), 'utf8').includes('{"ack":"dev-ping-1"}'),
      );
      const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
      const described = await new Client({ connection }).workflow
        .getHandle(repoPollerWorkflowId(REPO))
        .describe();
      expect(described.status.name).toBe('RUNNING');
      await connection.close();
      expect(output).not.toContain(SECRET);

      dev.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output).toMatch(/stopped\n?$/);
      await expect(fetch(url)).rejects.toThrow();
      expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(stateDir);
    } finally {
      if (dev.exitCode === null) dev.kill('SIGKILL');
      await fake.stop();
    }
  });
});

describe('the-loop webhook exit codes', () => {
  it('exits 2 without a secret, naming both ways to set one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-webhook-'));
    const result = await runCli(['webhook'], {
      env: { THE_LOOP_STATE_DIR: dir, THE_LOOP_CONFIG: '', THE_LOOP_WEBHOOK_SECRET: '' },
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no webhook secret: set THE_LOOP_WEBHOOK_SECRET or webhook\.secret/);
  });

  it('exits 4 on its own (not a hang) when Temporal cannot be reached, and never prints the secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-webhook-'));
    const port = await freePort();
    const result = await runCli(['webhook', '--port', '0'], {
      env: {
        THE_LOOP_STATE_DIR: dir,
        THE_LOOP_CONFIG: '',
        THE_LOOP_WEBHOOK_SECRET: SECRET,
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      },
      cwd: dir,
      // killed only if it hangs: the CLI's own connection deadline is far shorter
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`cannot reach Temporal at 127.0.0.1:${port}`);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });
});
