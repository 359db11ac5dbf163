import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { createLocalKnowledge } from '../../../src/bridge/knowledge';
import type { GatewayResult, WorkItemGateway } from '../../../src/bridge/ingress';
import { createTemporalGateway } from '../../../src/bridge/temporal-gateway';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { createDeliveryHandler } from '../../../src/webhook/handler';
import { createReceiver, type Receiver } from '../../../src/webhook/receiver';
import { postDelivery } from '../../support/fake-github/sign';
import { workItemDirs } from '../../../src/work-item/paths';
import { parseWorkItemRef, tmuxSessionName } from '../../../src/work-item/ref';
import { linkPullRequestUpdate, workItemWorkflowId } from '../../../src/workflows/work-item/messages';
import {
  pollNowUpdate,
  repoPoller,
  repoPollerWorkflowId,
  stopPollerSignal,
} from '../../../src/workflows/repo-poller/workflow';
import { FakeGitHub } from '../../support/fake-github/server';
import {
  messagesText,
  MOCK_API_KEY,
  QUIET_CLAUDE_ENV,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { examplePayload, issueCommentPayload } from '../../support/fake-github/payloads';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';
import { waitFor } from '../../support/wait';
import { workflowStatus as workItemWorkflowStatus } from '../work-item/helpers';

const SECRET = 'integration-webhook-secret';
const REPO = 'Codertocat/Hello-World';
const CONTROL_WAIT_MS = 30_000;
// A case waits up to 120 s for the model more than once: on a loaded machine, more than the default 120 s in all.
jest.setTimeout(10 * 60_000);

function git(args: string[], cwd?: string): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

/**
 * The work items' sessions run the REAL interactive claude in tmux against the mock Anthropic API: what reaches a
 * session is what the mock received from it (submitted, not only typed into the input box).
 */
describe('GitHub bridge → work-item sessions (real Temporal, tmux, git, claude)', () => {
  const fake = new FakeGitHub();
  let mock: MockAnthropic;
  const savedConfigDir = process.env.CLAUDE_CONFIG_DIR;
  const socket = `the-loop-bridge-${randomUUID().slice(0, 8)}`;
  let worker: TestWorker;
  let client: Client;
  let connection: Connection;
  let receiver: Receiver;
  let url: string;
  let gatewayCalls: string[];
  const gatewayLog: string[] = [];
  const savedGitConfig = process.env.GIT_CONFIG_GLOBAL;

  const workflowStatus = (workItem: string) => workItemWorkflowStatus(client, workItem);

  function pane(workItem: string): string {
    const name = tmuxSessionName(parseWorkItemRef(workItem));
    const result = spawnSync('tmux', ['-L', socket, 'capture-pane', '-p', '-J', '-t', `=${name}:`], {
      encoding: 'utf8',
    });
    return result.stdout ?? '';
  }

  /** The mock received `text` from a session's claude: the text was submitted as a turn. */
  const modelReceived = (text: string) =>
    waitFor(
      `the model to receive '${text}'`,
      () => mock.requests.some((r) => r.kind === 'agent' && messagesText(r.body).includes(text)),
      120_000,
    );

  async function post(event: string, delivery: string, payload: unknown, secret = SECRET): Promise<number> {
    const res = await postDelivery(url, secret, { event, id: delivery, payload });
    // 202: queued; what it does is done once the forwarder handed it on. A start waits for the session's spawn up to
    // CONTROL_WAIT_MS before the gateway answers 'started' anyway: the deadline must outlast that bound on a loaded
    // machine, or the test gives up before the bridge does.
    if (res.status === 202)
      await waitFor(
        'every queued delivery handed on',
        () => receiver.stats.pending === 0,
        4 * CONTROL_WAIT_MS,
        20,
      );
    return res.status;
  }

  beforeAll(async () => {
    await fake.start();
    const repo = fake.repo(REPO);
    repo.permissions.set('codertocat', 'admin');
    repo.permissions.set('mallory', 'read');

    // The work item's repository, served from a local bare repo through git's insteadOf.
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-bridge-git-'));
    const src = join(dir, 'src');
    git(['init', '-q', '-b', 'main', src]);
    writeFileSync(join(src, 'README.md'), 'hello\n');
    git(['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.'], src);
    git(['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init'], src);
    git(['clone', '-q', '--bare', src, join(dir, 'hello-world.git')]);
    const gitconfig = join(dir, 'gitconfig');
    writeFileSync(
      gitconfig,
      `[url "file://${join(dir, 'hello-world.git')}"]\n\tinsteadOf = https://github.com/codertocat/hello-world.git\n[user]\n\temail = t@example.com\n\tname = t\n`,
    );
    process.env.GIT_CONFIG_GLOBAL = gitconfig;

    // The hosted claude authenticates with the key in env.file; its own config dir skips the first-run dialogs.
    mock = await startMockAnthropic();
    const envFile = join(dir, 'session.env');
    writeFileSync(
      envFile,
      [
        `ANTHROPIC_API_KEY=${MOCK_API_KEY}`,
        `ANTHROPIC_BASE_URL=${mock.url}`,
        ...Object.entries(QUIET_CLAUDE_ENV).map(([k, v]) => `${k}=${v}`),
        '',
      ].join('\n'),
    );
    process.env.CLAUDE_CONFIG_DIR = join(dir, 'claude-config');
    mkdirSync(process.env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(
      join(process.env.CLAUDE_CONFIG_DIR, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false }),
    );

    const config = testConfig({
      github: { apiUrl: fake.url },
      routing: { autoExecuteLabels: ['bug'], tmux: { socket } },
      harness: { claude: { command: realClaudeBin() } },
      env: { file: envFile, sessionPassthrough: ['ANTHROPIC_BASE_URL', ...Object.keys(QUIET_CLAUDE_ENV)] },
    });
    const github = createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false });
    worker = await startTestWorker({ config, deps: { github } });
    ({ client, connection } = await testClient());
    const inner = createTemporalGateway(
      client,
      { taskQueue: worker.taskQueue, hostQueue: worker.hostQueue },
      {
        controlWaitMs: CONTROL_WAIT_MS,
        logger: { info: (l) => console.log(l), warn: (l) => console.log(l) },
      },
    );
    gatewayCalls = [];
    const counting: WorkItemGateway = {
      control: (w, c, m): Promise<GatewayResult> => (
        gatewayCalls.push(`control ${c} ${w}`),
        inner.control(w, c, m)
      ),
      deliver: (e, a): Promise<GatewayResult> => (
        gatewayCalls.push(`deliver ${e.workItem}`),
        inner.deliver(e, a)
      ),
      close: (w, m): Promise<GatewayResult> => (gatewayCalls.push(`close ${w}`), inner.close(w, m)),
      answer: (w, a, m): Promise<GatewayResult> => (
        gatewayCalls.push(`answer ${a.answer} ${w}`),
        inner.answer(w, a, m)
      ),
    };
    receiver = createReceiver({
      secret: SECRET,
      path: '/github/webhook',
      maxBodyBytes: 1024 * 1024,
      ledger: DeliveryLedger.open(deliveryLedgerFile(worker.deps.stateDir)),
      inbox: await DeliveryInbox.open(deliveryInboxFile(worker.deps.stateDir)),
      handle: createDeliveryHandler({
        config,
        github,
        gateway: counting,
        knowledge: createLocalKnowledge(workItemDirs(config, worker.deps.stateDir)),
      }),
    });
    url = (await receiver.listen(0)).url;
  });

  afterAll(async () => {
    await receiver?.close();
    await worker?.shutdown();
    await connection?.close();
    await fake.stop();
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    await mock?.close();
    if (savedGitConfig === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = savedGitConfig;
    if (savedConfigDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = savedConfigDir;
  });

  const ISSUE = 'github:codertocat/hello-world#1';

  it('a bad signature gets 401 and nothing happens', async () => {
    expect(await post('issue_comment', 'bad-1', issueCommentPayload('the-loop start'), 'wrong-secret')).toBe(
      401,
    );
    expect(gatewayCalls).toEqual([]);
    expect(await workflowStatus(ISSUE)).toBeNull();
  });

  it('the same "the-loop start" from an unauthorized user does nothing', async () => {
    expect(await post('issue_comment', 'unauth-1', issueCommentPayload('the-loop start', 'mallory'))).toBe(
      202,
    );
    expect(gatewayCalls).toEqual([]);
    expect(await workflowStatus(ISSUE)).toBeNull();
  });

  it('a signed start from an authorized user on a labelled issue starts a session in tmux; a repeat is acted on once', async () => {
    const payload = issueCommentPayload('the-loop start');
    expect(await post('issue_comment', 'start-1', payload)).toBe(202);
    expect(await post('issue_comment', 'start-1', payload)).toBe(200);
    expect(gatewayCalls).toEqual([`control start ${ISSUE}`]);
    expect(gatewayLog).toEqual([]); // no refusal, no late answer
    expect(await workflowStatus(ISSUE)).toBe('RUNNING');
    // The session's first turn (the process graph's first node, naming the work item), submitted to the real claude.
    await modelReceived(ISSUE);
  });

  it('a review comment on a linked PR reaches the work item pane', async () => {
    fake.addPull(REPO, { number: 2, head: 'changes', labels: ['bug'] });
    const link = await client.workflow
      .getHandle(workItemWorkflowId(ISSUE))
      .executeUpdate(linkPullRequestUpdate, { args: [{ pullRequest: 'github:codertocat/hello-world#2' }] });
    expect(link.alreadyRecorded).toBe(false);
    const payload = examplePayload('pull_request_review_comment', 'created');
    (payload.comment as Record<string, unknown>).body = 'please rename the helper';
    expect(await post('pull_request_review_comment', 'review-1', payload)).toBe(202);
    expect(gatewayCalls).toContain(`deliver ${ISSUE}`);
    await modelReceived('please rename the helper');
    expect(pane(ISSUE)).toContain('please rename the helper');
  });

  it('the issue closing auto-closes the session (webhook path)', async () => {
    const closed = examplePayload('issues', 'reopened');
    closed.action = 'closed';
    (closed.issue as Record<string, unknown>).state = 'closed';
    expect(await post('issues', 'closed-1', closed)).toBe(202);
    expect(gatewayCalls).toContain(`close ${ISSUE}`);
    await waitFor('the session to close', async () => (await workflowStatus(ISSUE)) === 'COMPLETED');
  });

  it('the poller: start keyword, nothing new costs only 304s, and the issue closing auto-closes (poller path)', async () => {
    const item = 'github:codertocat/hello-world#5';
    fake.addIssue(REPO, { number: 5, labels: ['bug'] });
    fake.addComment(REPO, 5, 'the-loop start', { login: 'Codertocat' });
    const handle = await client.workflow.start(repoPoller, {
      taskQueue: worker.taskQueue,
      workflowId: repoPollerWorkflowId(`${REPO}-${randomUUID().slice(0, 6)}`),
      args: [{ repository: REPO, intervalMs: 3_600_000, hostQueue: worker.hostQueue }],
    });
    // the poller's first cycle runs as it starts; pollNow returns that cycle or the one after it
    const first = await handle.executeUpdate(pollNowUpdate);
    expect(first.error).toBeNull();
    await waitFor('the poller-started session', async () => (await workflowStatus(item)) === 'RUNNING');
    // Its claude took its first turn (closing the item while that is still being delivered would leave the delivery
    // waiting out its deadline for a pane that is gone).
    await modelReceived(item);

    // One settling cycle (a moved comment cursor changes one URL: a conditional request answered 200), then idle.
    const settle = fake.requests.length;
    await handle.executeUpdate(pollNowUpdate);
    expect(fake.countSince(settle).unconditional).toEqual([]);
    const mark = fake.requests.length;
    const idle = await handle.executeUpdate(pollNowUpdate);
    const counts = fake.countSince(mark);
    expect(idle).toMatchObject({ delivered: 0, acted: 0, error: null });
    expect(counts.total).toBeGreaterThan(0);
    expect(counts.unconditional).toEqual([]);
    expect(counts.notModified).toBe(counts.total);
    expect(idle.notModified).toBe(idle.requests);

    fake.close(REPO, 5);
    const closing = await handle.executeUpdate(pollNowUpdate);
    expect(closing.closed).toEqual([item]);
    await waitFor('the poller-closed session', async () => (await workflowStatus(item)) === 'COMPLETED');
    await handle.signal(stopPollerSignal);
    await handle.result();
  });
});
