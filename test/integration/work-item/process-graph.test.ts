import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import type { GatewayResult } from '../../../src/bridge/ingress';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery, workItemWorkflowId } from '../../../src/workflows/work-item/messages';
import { examplePayload, issueCommentPayload } from '../../support/fake-github/payloads';
import { FakeGitHub } from '../../support/fake-github/server';
import {
  lastToolResults,
  messagesText,
  startMockAnthropic,
  type ContentBlock,
  type MockAnthropic,
  type MockReply,
} from '../../support/mock-anthropic';
import {
  git,
  isNodeCommand,
  newestPrompt,
  setupWorkItemEnv,
  workflowStatus,
  type WorkItemTestEnv,
} from './helpers';
import { inRepository, startWebhookBridge, type WebhookBridge } from './webhook-bridge';
import { waitFor } from '../../support/wait';

// Every step is a CLI process or a webhook delivery followed by a wait for a condition; none is timed.
jest.setTimeout(600_000);

const SECRET = 'graph-webhook-secret';
const REPO = 'octo/repo';
const NUMBER = 70;
const ITEM = `github:${REPO}#${NUMBER}`;
const PULL = 71;

/**
 * A work item walked through the default process graph (spec → spec-approval → implement → review → done) against
 * the real dev server, tmux, git, the REAL interactive claude (hosted with the plugin) against the mock Anthropic
 * API, and the fake GitHub: the spec node's turn writes its artifact with claude's own Write tool, `sessions
 * outcome` and `sessions answer` from the CLI, `the-loop approve` comments through the webhook bridge, phase labels
 * on the ticket, and an authorized closure running cleanup.
 */
describe('the process graph of a work item (real Temporal, tmux, git, claude; fake GitHub)', () => {
  const fake = new FakeGitHub();
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let bridge: WebhookBridge;
  const gatewayCalls: string[] = [];
  /** The spec turn's Write waits for this: the test first proves that a spec node without its artifact is held. */
  let releaseSpec: () => void = () => undefined;
  const specReleased = new Promise<void>((r) => (releaseSpec = r));
  /** What the agent's `the-loop sessions outcome`, run from inside its spec turn, printed (its Bash tool result). */
  let reported: ContentBlock | null = null;
  const OUTCOME_COMMAND = `the-loop sessions outcome --work-item '${ITEM}' success`;
  const specFile = () =>
    join(env.record(ITEM)?.checkout?.path ?? '', 'docs', 'specs', String(NUMBER), 'spec.md');

  beforeAll(async () => {
    // The agent: the first spec turn writes the spec (claude's Write tool, in the checkout), then reports the node's
    // success as the plugin's command tells it to (Bash: the-loop sessions outcome); every other prompt is answered
    // with `received: <prompt>`.
    let specWritten = false;
    let outcomeAsked = false;
    mock = await startMockAnthropic({
      respond: (call): MockReply => {
        const prompt = newestPrompt(call.body);
        const results = lastToolResults(call.body);
        if (results.length > 0 && !outcomeAsked) {
          outcomeAsked = true;
          return {
            toolUses: [
              { name: 'Bash', input: { command: OUTCOME_COMMAND, description: 'Report the spec phase' } },
            ],
          };
        }
        if (results.length > 0) {
          reported = results[0] ?? null;
          return { text: 'the spec is written, and its success reported' };
        }
        if (!specWritten && prompt.includes(`Work on ${ITEM}`)) {
          specWritten = true;
          return {
            toolUses: [{ name: 'Write', input: { file_path: specFile(), content: '# the spec\n' } }],
            until: specReleased,
          };
        }
        return { text: `received: ${prompt}` };
      },
    });
    await fake.start();
    const repo = fake.repo(REPO);
    repo.permissions.set('codertocat', 'admin');
    repo.permissions.set('mallory', 'read');
    fake.addIssue(REPO, { number: NUMBER, labels: ['the-loop'] });
    const github = createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false });
    // The pane's HOME makes claude's shell snapshot fail, as a busy machine does (it gets 10 s): claude then runs
    // every Bash command in a login shell, whose profile resets PATH, and the-loop must still be found there.
    const home = mkdtempSync(join(tmpdir(), 'graph-home-'));
    writeFileSync(join(home, '.bashrc'), 'if [ -n "${SNAPSHOT_FILE-}" ]; then exit 1; fi\n');
    writeFileSync(join(home, '.bash_profile'), 'PATH=/usr/bin:/bin\nexport PATH\n');
    env = await setupWorkItemEnv({
      mock,
      yaml: { github: { apiUrl: fake.url } },
      deps: { github },
      envFileLines: ['HTTPS_PROXY=http://proxy-old.invalid:3128', `HOME=${home}`],
      passthrough: ['HTTPS_PROXY', 'HOME'],
    });

    bridge = await startWebhookBridge(env, github, SECRET, (inner) => ({
      control: (w, c, m): Promise<GatewayResult> => (
        gatewayCalls.push(`control ${c}`),
        inner.control(w, c, m)
      ),
      deliver: (e, a): Promise<GatewayResult> => (gatewayCalls.push('deliver'), inner.deliver(e, a)),
      close: (w, m): Promise<GatewayResult> => (
        gatewayCalls.push(`close ${m.authorized ? 'authorized' : 'unauthorized'}`),
        inner.close(w, m)
      ),
      answer: (w, a, m): Promise<GatewayResult> => (
        gatewayCalls.push(`answer ${a.answer} by ${m.by}`),
        inner.answer(w, a, m)
      ),
    }));
  });

  afterAll(async () => {
    releaseSpec();
    await bridge?.close();
    await env?.dispose();
    await mock?.close();
    await fake.stop();
  });

  /** What the-loop typed into the pane, turn by turn (each turn's prompt.txt). */
  const typed = () => {
    const dir = join(env.record(ITEM)?.session_dir ?? '', 'iterations');
    return existsSync(dir)
      ? readdirSync(dir)
          .sort()
          .map((turn) => join(dir, turn, 'prompt.txt'))
          .filter((file) => existsSync(file))
          .map((file) => readFileSync(file, 'utf8'))
      : [];
  };
  /** The node commands claude expanded and sent to the model so far. */
  const nodeCalls = () => env.prompts().filter((prompt) => prompt.includes(`# Work on ${ITEM}`)).length;
  /**
   * A node's turn: the-loop typed its command as the next turn, and claude expanded it and sent it to the model
   * (the `nodeCalls()` count grows past `before`, the newest with the node's phase).
   */
  async function nodeTurn(phase: string, before: number): Promise<void> {
    await waitFor(`the ${phase} turn to reach the model`, () => nodeCalls() > before, 120_000);
    const sent = env.prompts().filter((prompt) => prompt.includes(`# Work on ${ITEM}`));
    expect(isNodeCommand(sent.at(-1) ?? '', ITEM, phase)).toBe(true);
    expect(typed().at(-1)).toBe(`/the-loop:work-on ${ITEM} --phase ${phase}`);
  }

  /** Points a fixture payload at this test's issue (octo/repo#70, labelled). */
  function onThisIssue(payload: Record<string, unknown>): Record<string, unknown> {
    inRepository(payload, REPO);
    const issue = payload.issue as Record<string, unknown>;
    issue.number = NUMBER;
    issue.labels = [{ name: 'the-loop' }];
    return payload;
  }

  /** Points a fixture payload at the pull request delivering this test's issue (octo/repo#71 from its branch). */
  function onThisPull(payload: Record<string, unknown>, branch: string): Record<string, unknown> {
    inRepository(payload, REPO);
    const pull = payload.pull_request as Record<string, unknown>;
    pull.number = PULL;
    pull.labels = [{ name: 'the-loop' }];
    pull.head = { ...(pull.head as Record<string, unknown>), ref: branch };
    pull.body = 'Implements the spec.';
    return payload;
  }

  const post = (event: string, payload: Record<string, unknown>) => bridge.post(event, payload);

  async function status() {
    const handle = await runningWorkItem(env.client, ITEM);
    if (!handle) throw new Error(`no running session for ${ITEM}`);
    return handle.query(statusQuery);
  }

  /** The current details the Web UI shows for the session (the SDK's built-in metadata query). */
  async function currentDetails(): Promise<string | undefined> {
    const handle = await runningWorkItem(env.client, ITEM);
    if (!handle) throw new Error(`no running session for ${ITEM}`);
    return (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
  }

  const labels = () => fake.repo(REPO).items.get(NUMBER)?.labels ?? [];
  const phaseLabels = () => labels().filter((l) => l.startsWith('loop:'));
  const gateComments = () =>
    fake
      .repo(REPO)
      .comments.filter(
        (c) => c.issue === NUMBER && c.body.includes('the-loop is waiting at **spec-approval**'),
      );

  it('an authorized `the-loop start` on the labelled issue enters the spec node: its turn is the kickoff, its phase label is on the ticket', async () => {
    const refused = await post(
      'issue_comment',
      onThisIssue(issueCommentPayload('the-loop start', 'mallory')),
    );
    expect(refused).toMatchObject({ action: 'unauthorized', workItem: ITEM });
    expect(await workflowStatus(env.client, ITEM)).toBeNull();
    const started = await post(
      'issue_comment',
      onThisIssue(issueCommentPayload('the-loop start', 'Codertocat')),
    );
    expect(started).toMatchObject({ action: 'started', workItem: ITEM, command: 'start' });
    expect(gatewayCalls).toEqual(['control start']);
    gatewayCalls.length = 0;
    await nodeTurn('spec', 0);
    expect(typed()).toEqual([`/the-loop:work-on ${ITEM} --phase spec`]);
    await waitFor('the loop:spec label', () => phaseLabels().join() === 'loop:spec', 180_000);
    expect(labels()).toContain('the-loop');
    expect(await status()).toMatchObject({ node: 'spec', waitingAt: null });
    expect(gateComments()).toEqual([]);
  });

  it('an answer while no gate waits is refused by the update validator: one line, exit 1, nothing moves', async () => {
    const r = await env.cli(['sessions', 'answer', '--work-item', ITEM, 'approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/approve github:octo\/repo#70 refused: not waiting at a gate \(at 'spec'\)$/),
    ]);
    // bad usage is refused before anything is asked: exit 2
    const bad = await env.cli(['sessions', 'answer', '--work-item', ITEM, 'approve', '--reason', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--reason goes with reject/);
    const maybe = await env.cli(['sessions', 'answer', '--work-item', ITEM, 'maybe']);
    expect(maybe.code).toBe(2);
    expect(await status()).toMatchObject({ node: 'spec', waitingAt: null });
    expect(phaseLabels()).toEqual(['loop:spec']);
  });

  it('the spec succeeds only with its artifact, reported by the agent from inside its turn; it is committed on the branch with the state file', async () => {
    // the spec node's artifact is missing (its turn, under way, holds its Write): its success is refused at once,
    // though the turn has not ended, and nothing moves
    expect(existsSync(specFile())).toBe(false);
    const early = await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success']);
    expect(early.code).toBe(1);
    // named where it was looked for: the checkout the session runs in
    expect(early.stderr).toContain(`'spec' has not left ${specFile()}`);
    expect(await status()).toMatchObject({ node: 'spec', waitingAt: null });

    // the turn goes on: claude's Write leaves the spec in the work item's checkout, then the agent reports the
    // node's success from inside the same turn, which can only end once that report has returned
    releaseSpec();
    const result = await waitFor("the agent's outcome report", () => reported, 180_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}; the pane shows:\n${env.capture(ITEM)}`);
      },
    );
    const printed =
      typeof result.content === 'string'
        ? result.content
        : messagesText({ messages: [{ role: 'user', content: result.content ?? [] }] });
    // exactly what the command prints on stdout, and no warning; a failed command shows what it printed instead
    expect({ isError: result.is_error === true, lines: printed.trim().split('\n') }).toEqual({
      isError: false,
      lines: [`${ITEM}: spec success → spec-approval`, expect.stringMatching(/^waiting at spec-approval: /)],
    });
    await waitFor(
      'the spec turn to end',
      async () => {
        const s = await status();
        return s.delivered === 1 && s.queued === 0;
      },
      180_000,
    );
    expect(readFileSync(specFile(), 'utf8')).toBe('# the spec\n');
    expect(await status()).toMatchObject({ node: 'spec-approval', waitingAt: 'spec-approval' });
    expect(await currentDetails()).toMatch(/^waiting at spec-approval: approve the spec, or reject it/);
    expect(phaseLabels()).toEqual(['loop:spec-approval']);
    expect(gateComments()).toHaveLength(1);
    expect(gateComments()[0]?.body).toMatch(/`the-loop approve`/);

    // on the branch, as origin has it: the state file names the gate, and the spec is checked in beside it
    const branch = env.record(ITEM)?.checkout?.branch ?? '';
    const onOrigin = (path: string) => git(env.origin, 'show', `${branch}:${path}`);
    expect(JSON.parse(onOrigin(`docs/specs/${NUMBER}/work-item-state.json`))).toMatchObject({
      work_item: ITEM,
      node: 'spec-approval',
      previous: 'spec',
    });
    expect(onOrigin(`docs/specs/${NUMBER}/spec.md`)).toBe('# the spec\n');

    // sessions list shows the node
    const list = await env.cli(['sessions', 'list']);
    const [header, ...rows] = list.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    const row = rows.find((cells) => cells[0] === ITEM);
    expect(row?.[header?.indexOf('NODE') ?? -1]).toBe('spec-approval');
    const json = await env.cli(['sessions', 'list', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ work_item: ITEM, node: 'spec-approval' }),
    ]);

    // a second outcome for the node it left is stale
    const stale = await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success', '--node', 'spec']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/refused: not at an agent node \(at 'spec-approval'\)/);

    // start while the gate waits reports it and spawns nothing new
    const start = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment']);
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/^waiting at spec-approval: /);
  });

  it('sessions answer reject sends the spec back: a fresh spec turn, then the gate again', async () => {
    const { delivered } = await status();
    const calls = nodeCalls();
    const r = await env.cli([
      'sessions',
      'answer',
      '--work-item',
      ITEM,
      'reject',
      '--reason',
      'the spec misses the error cases',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${ITEM}: rejected spec-approval → spec`);
    await waitFor(
      'a fresh spec turn delivered',
      async () => (await status()).delivered === delivered + 1,
      180_000,
    );
    await nodeTurn('spec', calls);
    expect(phaseLabels()).toEqual(['loop:spec']);

    expect((await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success'])).code).toBe(0);
    expect(await status()).toMatchObject({ waitingAt: 'spec-approval' });
    expect(gateComments()).toHaveLength(2);
  });

  it('a gate is answered by a label too, through the same authorization', async () => {
    const labelled = (label: string, login: string) => {
      const payload = onThisIssue(examplePayload('issues', 'labeled'));
      payload.label = { name: label };
      payload.sender = { ...(payload.sender as Record<string, unknown>), login };
      return payload;
    };
    const refused = await post('issues', labelled('the-loop:reject', 'mallory'));
    expect(refused).toMatchObject({ action: 'unauthorized', workItem: ITEM });
    expect(await status()).toMatchObject({ waitingAt: 'spec-approval' });

    const { delivered } = await status();
    const calls = nodeCalls();
    const rejected = await post('issues', labelled('the-loop:reject', 'Codertocat'));
    expect(rejected).toMatchObject({ action: 'signalled', reason: 'the label the-loop:reject' });
    expect(gatewayCalls).toEqual(['answer reject by Codertocat']);
    gatewayCalls.length = 0;
    await waitFor(
      'the next spec turn delivered',
      async () => (await status()).delivered === delivered + 1,
      180_000,
    );
    await nodeTurn('spec', calls);
    expect(await status()).toMatchObject({ node: 'spec', waitingAt: null });
    expect((await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success'])).code).toBe(0);
    expect(gateComments()).toHaveLength(3);
  });

  it('`the-loop approve` from an unauthorized user is refused; from an authorized one it moves on to implement', async () => {
    const refused = await post(
      'issue_comment',
      onThisIssue(issueCommentPayload('the-loop approve', 'mallory')),
    );
    expect(refused).toMatchObject({ action: 'unauthorized', workItem: ITEM });
    expect(gatewayCalls).toEqual([]);
    expect(await status()).toMatchObject({ node: 'spec-approval', waitingAt: 'spec-approval' });
    const calls = nodeCalls();

    const approved = await post(
      'issue_comment',
      onThisIssue(issueCommentPayload('Looks right.\nthe-loop approve\n', 'Codertocat')),
    );
    expect(approved).toMatchObject({ action: 'signalled', reason: 'the-loop approve', workItem: ITEM });
    expect(gatewayCalls).toEqual(['answer approve by Codertocat']);
    expect(await status()).toMatchObject({ node: 'implement', waitingAt: null });
    expect(phaseLabels()).toEqual(['loop:implement']);
    await nodeTurn('implement', calls);

    // the same answer again is stale: the gate no longer waits, and nothing moves
    const again = await post(
      'issue_comment',
      onThisIssue(issueCommentPayload('the-loop approve', 'Codertocat')),
    );
    expect(again).toMatchObject({ action: 'not-running', reason: 'nothing waits for that answer' });
    expect(await status()).toMatchObject({ node: 'implement' });
    expect(gateComments()).toHaveLength(3);
  });

  it('implement opens a pull request; review routes its review in as a turn, and its merge alone ends nothing', async () => {
    const branch = env.record(ITEM)?.checkout?.branch ?? '';
    // the implement turn opened a pull request from the work item's branch and recorded it
    fake.addPull(REPO, { number: PULL, head: branch, labels: ['the-loop'] });
    const link = await env.cli(['sessions', 'link-pr', '--work-item', ITEM, '--pull-request', String(PULL)]);
    expect(link.code).toBe(0);
    const calls = nodeCalls();
    const done = await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success']);
    expect(done.stdout).toContain(`${ITEM}: implement success → review`);
    await nodeTurn('review', calls);
    expect(phaseLabels()).toEqual(['loop:review']);

    const review = onThisPull(examplePayload('pull_request_review', 'submitted'), branch);
    const submitted = review.review as Record<string, unknown>;
    submitted.body = 'please cover the empty input';
    submitted.user = { ...(submitted.user as Record<string, unknown>), login: 'Codertocat' };
    review.sender = { ...(review.sender as Record<string, unknown>), login: 'Codertocat' };
    expect(await post('pull_request_review', review)).toMatchObject({ action: 'signalled', workItem: ITEM });
    // the review is a turn of its own: claude sent it to the model
    await env.agentCall(/GitHub: @Codertocat reviewed [\s\S]*#71[\s\S]*please cover the empty input/);

    // the pull request merged: a pull request delivering the item closing leaves its session running
    const merged = onThisPull(examplePayload('pull_request', 'closed'), branch);
    const pull = merged.pull_request as Record<string, unknown>;
    Object.assign(pull, { state: 'closed', merged: true, merged_at: new Date().toISOString() });
    expect(await post('pull_request', merged)).toMatchObject({ workItem: ITEM });
    expect(await workflowStatus(env.client, ITEM)).toBe('RUNNING');
    expect(await status()).toMatchObject({ node: 'review' });
  });

  it('the merge closed the issue (by a user with write access): cleanup runs, loop:cleanup, no checkout, no record', async () => {
    const checkout = env.record(ITEM)?.checkout?.path ?? '';
    expect(existsSync(checkout)).toBe(true);
    const closed = onThisIssue(examplePayload('issues', 'reopened'));
    closed.action = 'closed';
    (closed.issue as Record<string, unknown>).state = 'closed';
    closed.sender = { ...(closed.sender as Record<string, unknown>), login: 'Codertocat' };
    const outcome = await post('issues', closed);
    expect(outcome).toMatchObject({ action: 'signalled', workItem: ITEM });
    expect(gatewayCalls).toContain('close authorized');
    await waitFor(
      'the session to end',
      async () => (await workflowStatus(env.client, ITEM)) === 'COMPLETED',
      120_000,
    );
    // THE_LOOP_RECORD_HISTORIES=1 refreshes the replay test's history of this walk through the graph
    if (process.env.THE_LOOP_RECORD_HISTORIES === '1') {
      const file = defaultHistoryFile('work-item-branch-state');
      await recordHistory(env.client, workItemWorkflowId(ITEM), file);
    }
    expect(phaseLabels()).toEqual(['loop:cleanup']);
    expect(existsSync(checkout)).toBe(false);
    expect(env.record(ITEM)).toBeNull();
    expect(env.tmux('has-session', '-t', `=${env.tmuxName(ITEM)}`).code).not.toBe(0);
  });
});
