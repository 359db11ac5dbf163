import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { hookChannelDir } from '../../../src/worker/socket-dir';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { examplePayload, issueCommentPayload } from '../../support/fake-github/payloads';
import { FakeGitHub } from '../../support/fake-github/server';
import {
  lastToolResults,
  messagesText,
  startMockAnthropic,
  type MessagesBody,
  type MockAnthropic,
  type MockReply,
} from '../../support/mock-anthropic';
import { paneEnvironment, setupRealClaudeEnv, workflowStatus, type WorkItemTestEnv } from './helpers';
import { inRepository, startWebhookBridge, type WebhookBridge } from './webhook-bridge';
import { waitFor } from '../../support/wait';

jest.setTimeout(900_000);

const KEY = `sk-ant-api03-journey-${randomUUID()}`;
const TOKEN = `ghp_journey_${randomUUID().replace(/-/g, '')}`;
const SECRET = 'journey-webhook-secret';
const REPO = 'octo/repo';
const NUMBER = 1401;
const ITEM = `github:${REPO}#${NUMBER}`;
const BRANCH = `issue-${NUMBER}-fix`;
const PUSHED = `Pushed ${BRANCH} and opened its pull request.`;
const REVIEW = 'REVIEW-1: please rename parseThing to parseConfig';
const ANSWERED = 'Renamed parseThing to parseConfig, as REVIEW-1 asked.';

/** The text of the newest user message: what this call of the conversation is about. */
function newestPrompt(body: MessagesBody): string {
  return messagesText({ ...body, messages: body.messages?.slice(-1) });
}

/**
 * A work item's whole journey with the REAL interactive Claude Code hosted by the-loop (tmux, the plugin's hooks),
 * the local mock of the Anthropic API, the fake GitHub (which refuses requests without the token) and the webhook
 * bridge: an authorized `the-loop start` on a labelled issue; the session opens with `/the-loop:work-on`, and the
 * agent pushes a branch and opens the pull request with the-loop, the PostToolUse hook linking it; a review comment
 * on the PR is the next turn, answered; the issue closes and so does the session; every turn left its reply.
 */
describe('a work item from `the-loop start` to its close, on the real claude', () => {
  const github = new FakeGitHub();
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let bridge: WebhookBridge;

  /** The session directory, kept for after cleanup has removed the record. */
  let sessionDir = '';

  function startComment(login: string): Record<string, unknown> {
    const payload = inRepository(issueCommentPayload('the-loop start', login, ['the-loop']), REPO);
    (payload.issue as Record<string, unknown>).number = NUMBER;
    return payload;
  }
  const statusOf = async () => (await runningWorkItem(env.client, ITEM))?.query(statusQuery);
  const turnDirs = () => {
    const dir = join(sessionDir, 'iterations');
    return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
  };
  const replyOf = (turn: string) =>
    existsSync(join(turn, 'result.json'))
      ? (JSON.parse(readFileSync(join(turn, 'result.json'), 'utf8')) as { success: boolean; text: string })
      : null;
  /** A permission prompt waits: answer it as a person at the pane would ("1. Yes" is selected). */
  async function approveWhenAsked(what: string) {
    await waitFor(
      `the permission prompt for ${what}`,
      async () => Boolean((await statusOf())?.waiting),
      180_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the pane shows:\n${env.capture(ITEM)}`);
    });
    env.tmux('send-keys', '-t', `=${env.tmuxName(ITEM)}:`, 'Enter');
  }

  beforeAll(async () => {
    await github.start();
    github.token = TOKEN;
    const repo = github.repo(REPO);
    repo.permissions.set('codertocat', 'admin');
    repo.permissions.set('mallory', 'read');
    github.addIssue(REPO, {
      number: NUMBER,
      title: 'Rename the parser',
      body: 'parseThing should say what it parses.',
      labels: ['the-loop'],
    });

    mock = await startMockAnthropic();
    mock.setRespond((call): MockReply => {
      if (lastToolResults(call.body).length > 0) return { text: PUSHED };
      if (newestPrompt(call.body).includes('REVIEW-1')) return { text: ANSWERED };
      // the command's text comes in among other blocks of the first prompt; one push per conversation
      const conversation = messagesText(call.body);
      if (conversation.includes(`Work on ${ITEM}`) && !conversation.includes(PUSHED))
        return {
          toolUses: [
            {
              name: 'Bash',
              input: {
                command: [
                  `git checkout -q -b ${BRANCH}`,
                  'git commit -q --allow-empty -m "Rename the parser"',
                  `git push -q -u origin ${BRANCH}`,
                  `the-loop pr create --work-item '${ITEM}' --title 'Rename the parser' --body 'Closes #${NUMBER}'`,
                ].join(' && '),
                description: 'Push the branch and open the pull request',
              },
            },
          ],
        };
      return { text: 'nothing to do' };
    });

    const client = createOctokitGitHubClient({
      apiUrl: github.url,
      auth: { kind: 'token', token: TOKEN, source: 'GH_TOKEN' },
      throttle: false,
    });
    env = await setupRealClaudeEnv(mock, KEY, {
      yaml: { github: { apiUrl: github.url }, routing: { waitingComment: true } },
      deps: { github: client },
      envFileLines: [`GH_TOKEN=${TOKEN}`],
    });
    bridge = await startWebhookBridge(env, client, SECRET);
  });

  afterAll(async () => {
    await bridge?.close();
    await env?.dispose();
    await mock?.close();
    await github.stop();
  });

  it('1–3: an authorized `the-loop start` opens the session with /the-loop:work-on; the agent pushes and opens the PR, and the hook links it', async () => {
    const ignored = await bridge.post('issue_comment', startComment('mallory'));
    expect(ignored).toMatchObject({ action: 'unauthorized', workItem: ITEM });
    expect(await workflowStatus(env.client, ITEM)).toBeNull();

    const started = await bridge.post('issue_comment', startComment('Codertocat'));
    expect(started).toMatchObject({ workItem: ITEM });
    sessionDir = env.record(ITEM)?.session_dir ?? '';

    await approveWhenAsked('the push');
    // routing.waitingComment: the wait was said on the issue, with where to answer it
    const said = await waitFor(
      'the waiting comment',
      () =>
        github
          .repo(REPO)
          .comments.find((c) => c.issue === NUMBER && c.body.includes('is waiting for a human')),
      180_000,
    );
    expect(said.body).toContain(`the-loop sessions attach --work-item ${ITEM}`);
    const kickoff = await waitFor(
      'the kickoff turn to end',
      () => {
        const turn = turnDirs()[0];
        return turn && replyOf(turn) ? turn : null;
      },
      300_000,
    );
    expect(readFileSync(join(kickoff, 'prompt.txt'), 'utf8')).toBe(`/the-loop:work-on ${ITEM} --phase spec`);
    expect(replyOf(kickoff)).toMatchObject({ success: true, text: PUSHED });

    // `the-loop pr create` in the pane reached the fake GitHub with the pane's token file
    const pulls = [...github.repo(REPO).items.values()].filter((item) => item.pull);
    if (pulls.length === 0) {
      // what the command printed, as the model saw it
      const results = mock.agentCalls().flatMap((body) => lastToolResults(body));
      throw new Error(
        `no pull request was opened; the tool said: ${JSON.stringify(results)}; pane PATH ${paneEnvironment(env, ITEM).vars.get('PATH')}`,
      );
    }
    expect(pulls.map((p) => p.pull?.head.ref)).toEqual([BRANCH]);
    const pr = `github:${REPO}#${pulls[0]?.number ?? 0}`;
    await waitFor('the PR on the record', () => env.record(ITEM)?.pull_requests.includes(pr), 180_000);
    // and the PostToolUse hook ran link-pr --discover after the push, against the same GitHub
    const hookLogs = join(hookChannelDir(env.stateDir), 'logs');
    await waitFor(
      'the link-pr hook to report',
      () =>
        readdirSync(hookLogs).some((f) =>
          readFileSync(join(hookLogs, f), 'utf8').includes(`link-pr ${ITEM}: `),
        ),
      180_000,
    );
    const hookLog = readdirSync(hookLogs)
      .map((f) => readFileSync(join(hookLogs, f), 'utf8'))
      .join('');
    expect(hookLog).toMatch(new RegExp(`link-pr ${ITEM.replace(/[#/]/g, '\\$&')}: .*${pr.split('#')[1]}`));
    expect(hookLog).not.toMatch(/failed/);
  });

  it('4: a review comment on the PR is the next turn, and the agent answers it', async () => {
    const number = Number(env.record(ITEM)?.pull_requests[0]?.split('#')[1]);
    const payload = inRepository(examplePayload('pull_request_review_comment', 'created'), REPO);
    const pull = payload.pull_request as Record<string, unknown>;
    pull.number = number;
    pull.html_url = `https://github.com/${REPO}/pull/${number}`;
    pull.head = { ...(pull.head as Record<string, unknown>), ref: BRANCH };
    const review = payload.comment as Record<string, unknown>;
    review.body = REVIEW;
    review.user = { ...(review.user as Record<string, unknown>), login: 'Codertocat' };
    payload.sender = { ...(payload.sender as Record<string, unknown>), login: 'Codertocat' };
    expect(await bridge.post('pull_request_review_comment', payload)).toMatchObject({ workItem: ITEM });

    const answered = await waitFor(
      'the review turn to end',
      () => turnDirs().find((turn) => replyOf(turn)?.text === ANSWERED),
      300_000,
    );
    expect(readFileSync(join(answered, 'prompt.txt'), 'utf8')).toContain(REVIEW);
  });

  it('5–6: the issue closes, the session closes, and every turn left a non-empty result.json', async () => {
    const closed = inRepository(examplePayload('issues', 'reopened'), REPO);
    closed.action = 'closed';
    const issue = closed.issue as Record<string, unknown>;
    issue.number = NUMBER;
    issue.state = 'closed';
    issue.labels = [{ name: 'the-loop' }];
    closed.sender = { ...(closed.sender as Record<string, unknown>), login: 'Codertocat' };
    expect(await bridge.post('issues', closed)).toMatchObject({ action: 'signalled', workItem: ITEM });
    await waitFor(
      'the session to end',
      async () => (await workflowStatus(env.client, ITEM)) === 'COMPLETED',
      180_000,
    );

    const turns = turnDirs();
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const turn of turns)
      expect(replyOf(turn)).toMatchObject({ success: true, text: expect.stringMatching(/\S/) });
  });
});
