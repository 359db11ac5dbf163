import { hostVerbNamed, HostError } from '../../../src/work-item/host';
import { linkPullRequestUpdate, restartUpdate } from '../../../src/workflows/work-item/messages';

describe('host verbs are found by their update name, from the files of src/work-item/host/', () => {
  it.each([restartUpdate, linkPullRequestUpdate])('$name has its host side', async (update) => {
    const verb = await hostVerbNamed(update.name);
    expect(verb.update).toBe(update);
  });

  it('an update no host file answers is bad input, not a retry', async () => {
    const failure = await hostVerbNamed('workItem.noSuchVerb').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HostError);
    expect(failure).toMatchObject({
      kind: 'bad-input',
      message: 'no host verb answers the update workItem.noSuchVerb',
    });
  });
});
