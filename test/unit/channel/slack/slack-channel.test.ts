import { configSchema } from '../../../../src/config/schema';
import { channelFromConfig, slackSigningSecret } from '../../../../src/channel/from-config';
import { SlackChannel } from '../../../../src/channel/slack/slack-channel';
import { parseSlackPermalink, slackThreadId } from '../../../../src/channel/slack/thread-ref';
import { FAKE_SLACK_TOKEN, FakeSlack } from '../../../support/fake-slack/server';

const ITEM = {
  ref: 'github:octo/repo#15',
  title: 'Fix the <flaky> test & more',
  url: 'https://github.com/octo/repo/issues/15',
};

describe('the Slack channel against a fake Slack', () => {
  const fake = new FakeSlack();
  let warnings: string[];
  let channel: SlackChannel;

  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.channels.clear();
    fake.calls.length = 0;
    fake.script.clear();
    fake.failing.clear();
    fake.addChannel('C0LOOP', 'the-loop');
    warnings = [];
    channel = new SlackChannel({
      token: FAKE_SLACK_TOKEN,
      channel: '#the-loop',
      apiUrl: fake.url,
      warn: (line) => warnings.push(line),
    });
  });

  it('opens a thread naming the work item, with the bot token, and returns its permalink', async () => {
    const thread = await channel.openOrFindThread(ITEM, {});
    const [parent] = fake.parents('C0LOOP');
    expect(parent).toBeDefined();
    expect(thread).toEqual({
      threadId: slackThreadId({ channel: 'C0LOOP', ts: parent?.ts ?? '' }),
      permalink: fake.permalink('C0LOOP', parent?.ts ?? ''),
    });
    // plain text: Slack's three markup characters escaped
    expect(parent?.text).toBe(
      'the-loop: github:octo/repo#15 — Fix the &lt;flaky&gt; test &amp; more\nhttps://github.com/octo/repo/issues/15',
    );
    expect(fake.calls.map((c) => [c.method, c.token])).toEqual([
      ['chat.postMessage', FAKE_SLACK_TOKEN],
      ['chat.getPermalink', FAKE_SLACK_TOKEN],
    ]);
    expect(fake.callsTo('chat.postMessage')[0]?.args).toMatchObject({
      mrkdwn: 'false',
      unfurl_links: 'false',
    });
    expect(warnings).toEqual([]);
  });

  it('finds the thread again from a recorded permalink without opening a second one, and posts in it', async () => {
    const first = await channel.openOrFindThread(ITEM, {});
    expect(first).not.toBeNull();
    // a new machine: a fresh client, only the permalink from the portable record
    const again = new SlackChannel({
      token: FAKE_SLACK_TOKEN,
      channel: 'C0LOOP',
      apiUrl: fake.url,
      warn: (l) => warnings.push(l),
    });
    const found = await again.openOrFindThread(ITEM, { existingPermalink: first?.permalink });
    expect(found).toEqual(first);
    expect(fake.parents('C0LOOP')).toHaveLength(1);
    expect(fake.callsTo('conversations.replies')).toHaveLength(1);

    expect(await again.post(found!, 'turn 1: fixed the test — $0.42')).toBe(true);
    const ref = parseSlackPermalink(found!.permalink);
    expect(fake.replies('C0LOOP', ref?.ts ?? '').map((m) => m.text)).toEqual([
      'turn 1: fixed the test — $0.42',
    ]);
    expect(warnings).toEqual([]);
  });

  it('opens a new thread when the recorded one is gone, or the link is not a Slack link', async () => {
    const first = await channel.openOrFindThread(ITEM, {});
    const ref = parseSlackPermalink(first!.permalink);
    fake.deleteMessage('C0LOOP', ref!.ts);
    const second = await channel.openOrFindThread(ITEM, { existingPermalink: first!.permalink });
    expect(second).not.toBeNull();
    expect(second?.permalink).not.toBe(first?.permalink);
    const third = await channel.openOrFindThread(ITEM, {
      existingPermalink: 'https://example.com/not-slack',
    });
    expect(third?.permalink).not.toBe(second?.permalink);
    expect(fake.parents('C0LOOP')).toHaveLength(2);
    expect(warnings).toEqual([
      'slack: github:octo/repo#15: the recorded thread is gone; opening a new thread',
      'slack: github:octo/repo#15: the recorded thread link is not a Slack message link; opening a new thread',
    ]);
  });

  it('keeps the recorded thread when Slack cannot be asked about it (no second thread on a transient failure)', async () => {
    const first = await channel.openOrFindThread(ITEM, {});
    fake.failing.set('conversations.replies', { status: 500 });
    const found = await channel.openOrFindThread(ITEM, { existingPermalink: first!.permalink });
    expect(found).toEqual(first);
    expect(fake.parents('C0LOOP')).toHaveLength(1);
    expect(warnings).toEqual([
      'slack: github:octo/repo#15: could not check the recorded thread (HTTP 500); keeping it',
    ]);
  });

  it('waits out a short 429 and posts', async () => {
    const thread = await channel.openOrFindThread(ITEM, {});
    fake.script.set('chat.postMessage', [{ status: 429, retryAfterS: 1 }]);
    expect(await channel.post(thread!, 'after the rate limit')).toBe(true);
    expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([200, 429, 200]);
    expect(warnings).toEqual([]);
  });

  it('a 429 that persists, or asks for too long a wait, only warns', async () => {
    const thread = await channel.openOrFindThread(ITEM, {});
    fake.failing.set('chat.postMessage', { status: 429, retryAfterS: 1 });
    await expect(channel.post(thread!, 'lost')).resolves.toBe(false);
    // the first call and two waits: then it gives up
    expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([200, 429, 429, 429]);
    fake.failing.set('chat.postMessage', { status: 429, retryAfterS: 120 });
    await expect(channel.post(thread!, 'lost too')).resolves.toBe(false);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(5);
    expect(warnings).toEqual([
      `slack: could not post in ${thread!.permalink} (rate limited (Retry-After 1s))`,
      `slack: could not post in ${thread!.permalink} (rate limited (Retry-After 120s))`,
    ]);
  });

  it('a 500 is retried, then only warns; opening a thread then gives null', async () => {
    fake.failing.set('chat.postMessage', { status: 500 });
    await expect(channel.openOrFindThread(ITEM, {})).resolves.toBeNull();
    expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([500, 500, 500]);
    expect(warnings).toEqual(['slack: github:octo/repo#15: could not open a thread (HTTP 500)']);
  });

  it('a refused token or a missing channel only warns', async () => {
    const wrong = new SlackChannel({
      token: 'xoxb-wrong',
      channel: 'C0LOOP',
      apiUrl: fake.url,
      warn: (l) => warnings.push(l),
    });
    await expect(wrong.openOrFindThread(ITEM, {})).resolves.toBeNull();
    const missing = new SlackChannel({
      token: FAKE_SLACK_TOKEN,
      channel: '#nowhere',
      apiUrl: fake.url,
      warn: (l) => warnings.push(l),
    });
    await expect(missing.openOrFindThread(ITEM, {})).resolves.toBeNull();
    expect(warnings).toEqual([
      'slack: github:octo/repo#15: could not open a thread (invalid_auth)',
      'slack: github:octo/repo#15: could not open a thread (channel_not_found)',
    ]);
    expect(warnings.join('\n')).not.toContain(FAKE_SLACK_TOKEN);
  });

  it('an unreachable Slack only warns', async () => {
    const nowhere = new SlackChannel({
      token: FAKE_SLACK_TOKEN,
      channel: 'C0LOOP',
      apiUrl: 'http://127.0.0.1:1/api/',
      warn: (l) => warnings.push(l),
    });
    await expect(nowhere.openOrFindThread(ITEM, {})).resolves.toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^slack: github:octo\/repo#15: could not open a thread \(request failed: .*ECONNREFUSED/,
    );
  });
});

describe('the channel from the config', () => {
  it('is off without a slack section, and off with a warning without the token', () => {
    const warnings: string[] = [];
    expect(channelFromConfig(configSchema.parse({}), (l) => warnings.push(l), {})).toBeNull();
    expect(warnings).toEqual([]);
    const config = configSchema.parse({ slack: { channel: 'C0LOOP', botTokenEnv: 'MY_SLACK_TOKEN' } });
    expect(channelFromConfig(config, (l) => warnings.push(l), { SLACK_BOT_TOKEN: 'x' })).toBeNull();
    expect(warnings).toEqual(['slack: MY_SLACK_TOKEN is not set; the Slack thread is off']);
    expect(channelFromConfig(config, (l) => warnings.push(l), { MY_SLACK_TOKEN: 'x' })?.kind).toBe('slack');
  });

  it('reads the signing secret from the named variable', () => {
    const config = configSchema.parse({ slack: { channel: 'C0LOOP', authorizedUsers: ['U1'] } });
    expect(slackSigningSecret(config, { SLACK_SIGNING_SECRET: 's3cret' })).toBe('s3cret');
    expect(slackSigningSecret(config, {})).toBeNull();
    expect(slackSigningSecret(configSchema.parse({}), { SLACK_SIGNING_SECRET: 's3cret' })).toBeNull();
  });
});
