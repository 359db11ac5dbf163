import { configSchema } from '../../../src/config/schema';
import { normalizeWebhook } from '../../../src/bridge/events';
import type { IngressDeps, IngressOutcome } from '../../../src/bridge/ingress';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { createDeliveryHandler } from '../../../src/webhook/handler';
import { RecordingGateway } from '../../support/fake-github/recording-gateway';
import { examplePayload, withUsers } from '../../support/fake-github/payloads';
import { FakeGitHub } from '../../support/fake-github/server';

// GitHub: `sender` is the user who triggered the event; a comment's or review's `user` is who wrote it (on an
// edit, not the editor). A gate answer or control keyword is authorized for the sender alone.
const REPO = 'Codertocat/Hello-World';
const ISSUE = 'github:codertocat/hello-world#1';
const PULL = 'github:codertocat/hello-world#2';

/** The events whose text may carry a keyword, each with the part of its payload that names the author. */
const WRITTEN = [
  { event: 'issue_comment', action: 'created', part: 'comment', subject: ISSUE },
  { event: 'pull_request_review', action: 'submitted', part: 'review', subject: PULL },
  { event: 'pull_request_review_comment', action: 'created', part: 'comment', subject: PULL },
] as const;

/** The events whose author is the item's (a label added, an item closed): only the sender acted. */
const LABELLED = [
  { event: 'issues', part: 'issue' },
  { event: 'pull_request', part: 'pull_request' },
] as const;

describe('authorization follows the delivery sender, not the author it names', () => {
  const fake = new FakeGitHub();
  let logs: string[];
  let gateway: RecordingGateway;

  beforeAll(async () => {
    await fake.start();
    const repo = fake.repo(REPO);
    repo.permissions.set('admin1', 'admin');
    repo.permissions.set('mallory', 'read');
  });
  afterAll(() => fake.stop());

  beforeEach(() => {
    logs = [];
    gateway = new RecordingGateway();
    gateway.running.add(ISSUE);
  });

  function deps(authorizedUsers: string[] = []): IngressDeps {
    return {
      config: configSchema.parse({ github: { apiUrl: fake.url, authorizedUsers } }),
      github: createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false }),
      gateway,
      // PR #2 is recorded as delivering issue #1
      knowledge: { recordedLink: (ref) => (ref === PULL ? ISSUE : null), isDisarmed: () => false },
      logger: { info: (line) => logs.push(line), warn: (line) => logs.push(line) },
    };
  }

  async function webhook(event: string, payload: unknown, d = deps()): Promise<IngressOutcome[]> {
    const outcomes: IngressOutcome[] = [];
    await createDeliveryHandler(d, (o) => outcomes.push(o))({ event, deliveryId: `d-${event}`, payload });
    return outcomes;
  }

  describe.each(WRITTEN)('$event $action', ({ event, action, part, subject }) => {
    function written(body: string, author: string, sender: string | null): Record<string, unknown> {
      const payload = withUsers(examplePayload(event, action), part, author, sender);
      (payload[part] as Record<string, unknown>).body = `looks fine\n${body}`;
      return payload;
    }

    it('a gate answer written by an admin but sent by a reader is refused', async () => {
      const outcomes = await webhook(event, written('the-loop approve', 'admin1', 'mallory'));
      expect(outcomes).toEqual([
        expect.objectContaining({
          action: 'unauthorized',
          reason: '@mallory may not answer gates or prompts',
        }),
      ]);
      expect(gateway.calls).toEqual([]);
    });

    it('a gate answer sent by an admin counts for the admin, whoever the author', async () => {
      const outcomes = await webhook(event, written('the-loop approve', 'mallory', 'admin1'));
      expect(outcomes).toEqual([expect.objectContaining({ action: 'signalled', workItem: ISSUE })]);
      expect(gateway.calls).toEqual([expect.objectContaining({ type: 'answer', by: 'admin1' })]);
      expect(logs.join('\n')).toContain(
        `on ${subject}: written by @mallory, sent by @admin1 — authorization follows the sender`,
      );
    });

    it('a control keyword follows the sender both ways', async () => {
      expect(await webhook(event, written('the-loop stop', 'admin1', 'mallory'))).toEqual([
        expect.objectContaining({ action: 'unauthorized', command: 'stop' }),
      ]);
      expect(gateway.calls).toEqual([]);
      expect(await webhook(event, written('the-loop stop', 'mallory', 'admin1'))).toEqual([
        expect.objectContaining({ action: 'signalled', command: 'stop' }),
      ]);
      expect(gateway.calls).toEqual([expect.objectContaining({ type: 'control', by: 'admin1' })]);
    });

    it('free text is trusted for the sender, and the pane shows the author beside it', async () => {
      expect(await webhook(event, written('please go on', 'admin1', 'mallory'))).toEqual([
        expect.objectContaining({ action: 'unauthorized' }),
      ]);
      expect(gateway.calls).toEqual([]);
      await webhook(event, written('please go on', 'mallory', 'admin1'));
      const call = gateway.calls[0];
      if (call?.type !== 'deliver') throw new Error('nothing delivered');
      expect(call.event).toMatchObject({ actor: 'admin1', trusted: true });
      expect(call.event.text).toContain('GitHub: @mallory (sent by @admin1) ');
    });

    it('with no sender the actor is GitHub’s ghost, never authorized, even allowlisted', async () => {
      const outcomes = await webhook(event, written('the-loop approve', 'admin1', null), deps(['ghost']));
      expect(outcomes).toEqual([expect.objectContaining({ action: 'unauthorized' })]);
      expect(gateway.calls).toEqual([]);
    });
  });

  describe.each(LABELLED)('$event labeled / closed', ({ event, part }) => {
    function labelled(author: string, sender: string): Record<string, unknown> {
      const payload = withUsers(examplePayload(event, 'labeled'), part, author, sender);
      payload.label = { name: 'the-loop:approve' };
      return payload;
    }

    it('a gate label counts for its sender, never for the item’s author', async () => {
      expect(await webhook(event, labelled('admin1', 'mallory'))).toEqual([
        expect.objectContaining({ action: 'unauthorized' }),
      ]);
      expect(gateway.calls).toEqual([]);
      expect(await webhook(event, labelled('mallory', 'admin1'))).toEqual([
        expect.objectContaining({ action: 'signalled' }),
      ]);
      expect(gateway.calls).toEqual([expect.objectContaining({ type: 'answer', by: 'admin1' })]);
    });
  });

  it('an issue closed by a reader is not an authorized close, whoever opened it', async () => {
    for (const [author, sender, authorized] of [
      ['admin1', 'mallory', false],
      ['mallory', 'admin1', true],
    ] as const) {
      const payload = withUsers(examplePayload('issues', 'labeled'), 'issue', author, sender);
      payload.action = 'closed';
      (payload.issue as Record<string, unknown>).state = 'closed';
      gateway.running.add(ISSUE);
      await webhook('issues', payload);
      expect(gateway.calls.at(-1)).toEqual(expect.objectContaining({ type: 'close', authorized }));
    }
  });

  it('an edited comment (sender: the editor; user: the original author) is not acted on', () => {
    const edited = withUsers(examplePayload('issue_comment', 'edited'), 'comment', 'mallory', 'admin1');
    expect(normalizeWebhook('issue_comment', 'd-edit', edited)).toEqual({ ignored: 'issue_comment edited' });
  });
});
