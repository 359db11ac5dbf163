import { configSchema } from '../../../src/config/schema';
import { declaredEnvironment } from '../../../src/work-item/env';

describe('Slack credentials and hosted sessions', () => {
  it('keeps the default Slack names out, and renamed ones too, even when listed for passthrough', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', MY_BOT: 'xoxb-2', MY_SIGNING: 's2' };
    const defaults = declaredEnvironment(
      configSchema.parse({ env: { sessionPassthrough: ['SLACK_BOT_TOKEN'] } }),
      env,
    );
    expect(defaults.keptOut).toEqual(expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']));
    expect(defaults.refused).toEqual(['SLACK_BOT_TOKEN']);
    expect(defaults.forwarded).toEqual([]);

    const renamed = declaredEnvironment(
      configSchema.parse({
        slack: { channel: 'C0LOOP', botTokenEnv: 'MY_BOT', signingSecretEnv: 'MY_SIGNING' },
        env: { sessionPassthrough: ['MY_BOT', 'MY_SIGNING'] },
      }),
      env,
    );
    expect(renamed.keptOut).toEqual(expect.arrayContaining(['MY_BOT', 'MY_SIGNING', 'SLACK_BOT_TOKEN']));
    expect(renamed.refused).toEqual(['MY_BOT', 'MY_SIGNING']);
    expect(renamed.forwarded).toEqual([]);
  });
});
