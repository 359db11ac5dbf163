import { createSlackReplySink } from '../../../src/bridge/slack-replies';
import type { ChannelInbound, ChannelReply } from '../../../src/channel/channel';
import { RecordingGateway } from '../../support/fake-github/recording-gateway';

const THREAD = {
  threadId: 'slack:C0LOOP/1750000001.000001',
  permalink: 'https://x.slack.com/archives/C0LOOP/p1750000001000001',
};
const ITEM = 'github:octo/repo#15';

function reply(text: string, threadId = THREAD.threadId): ChannelReply {
  return {
    eventId: 'Ev1',
    threadId,
    channel: 'C0LOOP',
    threadTs: '1750000001.000001',
    ts: '1750000009.000002',
    user: 'U0ALICE',
    text,
  };
}

describe('authorized Slack thread replies → the work item', () => {
  let gateway: RecordingGateway;
  let warnings: string[];
  let sink: ReturnType<typeof createSlackReplySink>;

  beforeEach(() => {
    gateway = new RecordingGateway();
    gateway.running.add(ITEM);
    warnings = [];
    sink = createSlackReplySink({
      gateway,
      threadOwner: (threadId) => (threadId === THREAD.threadId ? { ...THREAD, workItem: ITEM } : null),
      logger: { info: () => undefined, warn: (line) => warnings.push(line) },
    });
  });

  it('a reply is an event for the session, keyed by the Slack event id, never a start', async () => {
    await sink({ kind: 'deliver', reply: reply('please add a test') });
    expect(gateway.calls).toHaveLength(1);
    const [call] = gateway.calls;
    expect(call).toMatchObject({ type: 'deliver', workItem: ITEM, allowStart: false });
    if (call?.type !== 'deliver') throw new Error('not a delivery');
    expect(call.event).toMatchObject({
      key: 'slack:Ev1',
      actor: 'slack:U0ALICE',
      trusted: true,
      url: THREAD.permalink,
      at: '2025-06-15T15:06:49.000Z',
    });
    expect(call.event.text).toContain('please add a test');
  });

  it('a keyword reply is that control verb; an exact approve or reject answers the gate', async () => {
    const inbound: ChannelInbound = { kind: 'keyword', command: 'pause', reply: reply('the-loop pause') };
    await sink(inbound);
    await sink({ kind: 'deliver', reply: reply('the-loop reject not like this') });
    await sink({ kind: 'deliver', reply: reply('the-loop approve\nand more') });
    expect(gateway.calls.map((c) => c.type)).toEqual(['control', 'answer', 'deliver']);
    expect(gateway.calls[0]).toMatchObject({ command: 'pause', by: 'slack:U0ALICE', allowStart: false });
    expect(gateway.calls[1]).toMatchObject({ answer: { answer: 'reject', reason: 'not like this' } });
  });

  it('a reply in a thread no work item owns is dropped with a warning', async () => {
    await sink({ kind: 'deliver', reply: reply('hello', 'slack:C0LOOP/1.000001') });
    expect(gateway.calls).toEqual([]);
    expect(warnings).toEqual([
      'slack: Ev1: no work item here has the thread slack:C0LOOP/1.000001; reply dropped',
    ]);
  });
});
