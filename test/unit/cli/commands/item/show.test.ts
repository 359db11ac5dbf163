import { run } from '../../../../../src/cli/commands/item/show';
import { capturedIo } from '../../../../support/captured-io';
import { refusal } from '../../../../support/cli-refusal';

describe('item show refuses what it cannot read, before loading the config or GitHub', () => {
  it('a ref of another tracker: exit 2, saying the-loop reads GitHub work items only and where to look instead', async () => {
    const io = capturedIo();
    const error = await refusal(run('jira:ABC-12', { format: 'markdown' }, io));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      "'jira:ABC-12' is a jira ref: the-loop reads GitHub work items only (github:OWNER/REPO#N). " +
        'Read the jira ticket where it lives, and track its work through the pull request that delivers it.',
    );
    expect(io.stdout).toEqual([]);
  });

  it('a GitHub ref that does not parse: exit 2', async () => {
    expect((await refusal(run('github:octo/repo', { format: 'markdown' }, capturedIo()))).exitCode).toBe(2);
  });

  it('a format other than markdown or json: exit 2, naming it', async () => {
    const error = await refusal(run('github:octo/repo#1', { format: 'yaml' }, capturedIo()));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe("--format must be markdown or json, not 'yaml'");
  });
});
