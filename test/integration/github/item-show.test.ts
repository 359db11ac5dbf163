import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workItemDirs } from '../../../src/work-item/paths';
import { writeRecord } from '../../../src/work-item/registry';
import { configSchema } from '../../../src/config/schema';
import { sessionRecord } from '../../support/registry-record';
import { runCli } from '../../support/cli';
import { FakeGitHub } from '../../support/fake-github/server';

const TOKEN = 'ghp_item_show_token';
const REF = 'github:octo/repo#31';

/** `the-loop item show`: the built CLI reads a work item through the-loop's GitHub client (the fake GitHub). */
describe('the-loop item show (fake GitHub)', () => {
  let github: FakeGitHub;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    github = new FakeGitHub();
    await github.start();
    github.token = TOKEN;
    github.addIssue('octo/repo', {
      number: 31,
      title: 'Crash on empty config',
      body: 'Running with an empty file crashes.\n\nExpected: a clear error.',
      labels: ['bug', 'the-loop'],
      user: { login: 'alice' },
    });
    github.addComment('octo/repo', 31, 'I can reproduce it on 1.2.', { login: 'bob' });
    github.addComment('octo/repo', 31, 'Please keep the old flag working.', { login: 'carol' });
    const pr = github.addPull('octo/repo', {
      number: 32,
      head: 'issue-31-fix',
      title: 'Fix the empty config crash',
    });
    github.addReview('octo/repo', 32, 'Needs a test for the empty file.', 'CHANGES_REQUESTED', {
      login: 'dave',
    });
    github.addReviewComment('octo/repo', 32, 'Name this constant.', 'src/config.ts');
    github.addCheckRun('octo/repo', pr.pull?.head.sha ?? '', 'ci / test', 'failure');
    github.addCheckRun('octo/repo', pr.pull?.head.sha ?? '', 'ci / lint', 'success');
    dir = mkdtempSync(join(tmpdir(), 'the-loop-item-'));
    const configFile = join(dir, 'the-loop.yaml');
    writeFileSync(configFile, `github:\n  apiUrl: ${github.url}\n`);
    env = { THE_LOOP_CONFIG: configFile, THE_LOOP_STATE_DIR: join(dir, 'state'), GH_TOKEN: TOKEN };
    const config = configSchema.parse({ github: { apiUrl: github.url } });
    writeRecord(workItemDirs(config, join(dir, 'state')), sessionRecord(REF, ['github:octo/repo#32'], dir));
  });

  afterAll(async () => {
    await github.stop();
  });

  it('prints the item, its whole thread, and the linked pull request with reviews and checks', async () => {
    const result = await runCli(['item', 'show', REF], { env, cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = result.stdout;
    for (const expected of [
      '# Issue github:octo/repo#31: Crash on empty config',
      '- Labels: bug, the-loop',
      '- Author: @alice',
      'Expected: a clear error.',
      '### @bob at',
      'I can reproduce it on 1.2.',
      'Please keep the old flag working.',
      '### github:octo/repo#32: Fix the empty config crash',
      '- Branch: issue-31-fix at',
      '- @dave: CHANGES_REQUESTED at',
      'Needs a test for the empty file.',
      '- @reviewer on src/config.ts:1: Name this constant.',
      '- ci / test: failure',
      '- ci / lint: success',
    ])
      expect([expected, text.includes(expected)]).toEqual([expected, true]);
    // The thread keeps its order.
    expect(text.indexOf('@bob')).toBeLessThan(text.indexOf('@carol'));
    // Every read went through the-loop's credentials.
    expect(github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it('prints JSON with --format json', async () => {
    const result = await runCli(['item', 'show', REF, '--format', 'json'], { env, cwd: dir });
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout) as {
      item: { title: string };
      comments: unknown[];
      linkedPullRequests: { reviews: unknown[]; checkRuns: unknown[] }[];
    };
    expect(view.item.title).toBe('Crash on empty config');
    expect(view.comments).toHaveLength(2);
    expect(view.linkedPullRequests[0]?.reviews).toHaveLength(1);
    expect(view.linkedPullRequests[0]?.checkRuns).toHaveLength(2);
  });

  it('shows a pull request work item with its own reviews and checks', async () => {
    const result = await runCli(['item', 'show', 'github:octo/repo#32'], { env, cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# Pull request github:octo/repo#32: Fix the empty config crash');
    expect(result.stdout).toContain('## This pull request');
    expect(result.stdout).toContain('- ci / test: failure');
  });

  it('says clearly that a jira ref (or any kind it does not track) is not read, exit 2', async () => {
    const jira = await runCli(['item', 'show', 'jira:PROJ-12'], { env, cwd: dir });
    expect(jira.code).toBe(2);
    expect(jira.stdout).toBe('');
    expect(jira.stderr).toBe(
      "the-loop: 'jira:PROJ-12' is a jira ref: the-loop reads GitHub work items only (github:OWNER/REPO#N). " +
        'Read the jira ticket where it lives, and track its work through the pull request that delivers it.\n',
    );
    const malformed = await runCli(['item', 'show', 'github:octo/repo'], { env, cwd: dir });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^the-loop: malformed work-item ref 'github:octo\/repo'/);
  });

  it('an item GitHub does not know is exit 1 with one line', async () => {
    const result = await runCli(['item', 'show', 'github:octo/repo#999'], { env, cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'the-loop: github:octo/repo#999: GitHub knows no such issue or pull request\n',
    );
  });
});
