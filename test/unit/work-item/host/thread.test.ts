import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadMirror } from '../../../../src/channel/mirror';
import { SlackChannel } from '../../../../src/channel/slack/slack-channel';
import { configSchema } from '../../../../src/config/schema';
import { locate } from '../../../../src/work-item/host/context';
import { openWorkItemThread, recordedThread, workItemOfThread } from '../../../../src/work-item/host/thread';
import { FAKE_SLACK_TOKEN, FakeSlack } from '../../../support/fake-slack/server';

const ITEM = 'github:octo/repo#15';

describe("a work item's thread, kept in its portable record", () => {
  const fake = new FakeSlack();
  let warnings: string[];
  let mirror: ThreadMirror;
  const hostOn = (root: string) => ({
    config: configSchema.parse({ state: { root } }),
    stateDir: root,
    mirror,
  });

  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.channels.clear();
    fake.failing.clear();
    fake.addChannel('C0LOOP', 'the-loop');
    warnings = [];
    mirror = new ThreadMirror(
      new SlackChannel({
        token: FAKE_SLACK_TOKEN,
        channel: 'C0LOOP',
        apiUrl: fake.url,
        warn: (l) => warnings.push(l),
        retries: 0,
      }),
    );
  });

  it('is opened once and recorded, found again from the record, and replies route back to the work item by it', async () => {
    const ctx = hostOn(mkdtempSync(join(tmpdir(), 'thread-')));
    const at = locate(ctx, ITEM);
    const thread = await openWorkItemThread(ctx, at);
    expect(thread).not.toBeNull();
    expect(recordedThread(at.dirs, at.slug)).toEqual(thread);
    expect(await openWorkItemThread(ctx, at)).toEqual(thread);
    expect(fake.parents('C0LOOP')).toHaveLength(1);
    expect(workItemOfThread(at.dirs, thread?.threadId ?? '')).toEqual({ ...thread, workItem: ITEM });
    expect(workItemOfThread(at.dirs, 'slack:C0LOOP/1.000001')).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('posts in the order asked, even when an earlier post waits out a rate limit', async () => {
    const ctx = hostOn(mkdtempSync(join(tmpdir(), 'thread-')));
    const thread = await openWorkItemThread(ctx, locate(ctx, ITEM));
    if (!thread) throw new Error('no thread');
    fake.script.set('chat.postMessage', [{ status: 429, retryAfterS: 1 }]);
    mirror.post(thread, 'first');
    mirror.post(thread, 'second');
    await mirror.settled();
    const [parent] = fake.parents('C0LOOP');
    expect(fake.replies('C0LOOP', parent?.ts ?? '').map((m) => m.text)).toEqual(['first', 'second']);
  });

  it('without a reachable Slack: no thread, no record, one warning, and nothing thrown', async () => {
    const ctx = hostOn(mkdtempSync(join(tmpdir(), 'thread-')));
    const at = locate(ctx, ITEM);
    fake.failing.set('chat.postMessage', { status: 503 });
    expect(await openWorkItemThread(ctx, at)).toBeNull();
    expect(recordedThread(at.dirs, at.slug)).toBeNull();
    expect(warnings).toEqual([`slack: ${ITEM}: could not open a thread (HTTP 503)`]);
  });
});
