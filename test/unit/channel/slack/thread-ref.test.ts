import {
  parseSlackPermalink,
  parseSlackThreadId,
  slackThreadId,
} from '../../../../src/channel/slack/thread-ref';

describe('Slack thread refs', () => {
  it('reads the channel and ts from a message permalink, with or without a query', () => {
    expect(parseSlackPermalink('https://acme.slack.com/archives/C0123ABC/p1700000000123456')).toEqual({
      channel: 'C0123ABC',
      ts: '1700000000.123456',
    });
    expect(
      parseSlackPermalink(
        ' https://acme.enterprise.slack.com/archives/G0PRIV/p1700000000000001?thread_ts=1700000000.000001&cid=G0PRIV ',
      ),
    ).toEqual({ channel: 'G0PRIV', ts: '1700000000.000001' });
  });

  it('refuses what is not a Slack message link', () => {
    for (const link of [
      '',
      'https://github.com/octo/repo/issues/15',
      'https://acme.slack.com/archives/C0123ABC',
      'https://acme.slack.com/archives/C0123ABC/p12',
      'http://acme.slack.com/archives/C0123ABC/p1700000000123456',
      'https://acme.slack.com/archives/c0123abc/p1700000000123456',
    ])
      expect({ link, ref: parseSlackPermalink(link) }).toEqual({ link, ref: null });
  });

  it('a thread id round-trips, and equals the one an inbound reply carries', () => {
    const ref = { channel: 'C0LOOP', ts: '1750000001.000001' };
    expect(slackThreadId(ref)).toBe('slack:C0LOOP/1750000001.000001');
    expect(parseSlackThreadId(slackThreadId(ref))).toEqual(ref);
    expect(parseSlackThreadId('github:octo/repo#1')).toBeNull();
  });
});
