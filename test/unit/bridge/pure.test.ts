import { gateAnswerOfLabel, parseAnswer, parseKeyword } from '../../../src/channel/keywords';
import { withMarker } from '../../../src/github/marker';
import { closingKeywordTarget, issueFromBranch, itemRef, routeItem } from '../../../src/bridge/routing';
import { carriesLabels, autoStartAllowed, startAllowed } from '../../../src/bridge/ingress';
import { PermissionCache, inAllowlist, permissionAllows } from '../../../src/bridge/authorize';
import type { RepoRef } from '../../../src/github/api';

const REPO: RepoRef = { host: 'github.com', owner: 'octo', repo: 'repo' };

describe('comment keywords', () => {
  it.each([
    ['the-loop start', 'start'],
    ['The-Loop PAUSE', 'pause'],
    ['please\nthe-loop resume\nthanks', 'resume'],
    ['  the-loop stop.  ', 'stop'],
    ['the-loop cleanup', 'cleanup'],
    ['/loop pause', 'pause'],
  ])('%j → %s', (body, verb) => expect(parseKeyword(body)).toBe(verb));
  it.each([
    'the-loop reset',
    'the-loop start now please',
    'I will run the-loop start later',
    '> the-loop start',
    '```\nthe-loop start\n```',
    'the-loopstart',
    '',
  ])('%j → nothing', (body) => expect(parseKeyword(body)).toBeNull());
  it('never counts a comment carrying the loop-prevention marker', () => {
    expect(parseKeyword(withMarker('the-loop start'))).toBeNull();
  });
});

describe('answer keywords: a gate, a permission prompt', () => {
  it.each([
    ['the-loop approve', { answer: 'approve', reason: null }],
    ['LGTM\nThe-Loop APPROVE!', { answer: 'approve', reason: null }],
    [
      'the-loop reject the API section is missing',
      { answer: 'reject', reason: 'the API section is missing' },
    ],
    ['the-loop reject', { answer: 'reject', reason: null }],
    ['the-loop allow', { answer: 'allow', reason: null }],
    ['looks safe\nthe-loop ALLOW.', { answer: 'allow', reason: null }],
    ['the-loop allow always', { answer: 'allow', reason: null, always: true }],
    ['the-loop Allow Always!', { answer: 'allow', reason: null, always: true }],
    ['the-loop deny not on main', { answer: 'deny', reason: 'not on main' }],
    ['the-loop deny', { answer: 'deny', reason: null }],
    ['/loop allow', { answer: 'allow', reason: null }],
    ['/LOOP deny not on main', { answer: 'deny', reason: 'not on main' }],
  ])('%j → %j', (body, answer) => expect(parseAnswer(body)).toEqual(answer));
  it.each([
    'the-loop approve it later maybe',
    'the-loop approved',
    'the-loop allow it if you like',
    'the-loop allow always and forever',
    'the-loop allowed',
    '> the-loop approve',
    '> the-loop allow',
    '```\nthe-loop reject no\n```',
    'the-loop start',
    'loop allow',
    '/loops allow',
  ])('%j → nothing', (body) => expect(parseAnswer(body)).toBeNull());
  it('never counts a comment carrying the loop-prevention marker, and is no control verb', () => {
    expect(parseAnswer(withMarker('the-loop approve'))).toBeNull();
    expect(parseKeyword('the-loop approve')).toBeNull();
  });
  it('a gate label answers like the keyword (a reject by label has no reason); any other label answers nothing', () => {
    expect(gateAnswerOfLabel('the-loop:approve')).toEqual({ answer: 'approve', reason: null });
    expect(gateAnswerOfLabel(' The-Loop:Reject ')).toEqual({ answer: 'reject', reason: null });
    for (const other of ['loop:spec-approval', 'the-loop', 'approve', '', null, undefined]) {
      expect(gateAnswerOfLabel(other)).toBeNull();
    }
  });
});

describe('authorization', () => {
  it('allowlist is case-insensitive; write and above may control', () => {
    expect(inAllowlist('Alice', ['alice'])).toBe(true);
    expect(inAllowlist('mallory', ['alice'])).toBe(false);
    expect(['admin', 'maintain', 'write'].every((p) => permissionAllows(p as 'admin'))).toBe(true);
    expect(['triage', 'read', 'none'].some((p) => permissionAllows(p as 'read'))).toBe(false);
  });
  it('caches a permission for its ttl', async () => {
    let now = 0;
    const cache = new PermissionCache(1000, () => now);
    let calls = 0;
    const load = async () => {
      calls++;
      return 'write' as const;
    };
    await cache.get('k', load);
    await cache.get('k', load);
    expect(calls).toBe(1);
    now = 2000;
    await cache.get('k', load);
    expect(calls).toBe(2);
  });
});

describe('label gating', () => {
  const policy = {
    autoExecuteLabels: ['the-loop', 'ready'],
    spawnOnUnmatched: 'labeled' as const,
    requireStartCommand: true,
  };
  it('needs every label, read from the payload; unknown labels never gate open', () => {
    expect(carriesLabels(['ready', 'The-Loop', 'bug'], policy.autoExecuteLabels)).toBe(true);
    expect(carriesLabels(['the-loop'], policy.autoExecuteLabels)).toBe(false);
    expect(carriesLabels(null, policy.autoExecuteLabels)).toBe(false);
  });
  it('start spawns only with spawnOnUnmatched labeled; any event only without requireStartCommand', () => {
    expect(startAllowed(policy, ['the-loop', 'ready'])).toBe(true);
    expect(startAllowed({ ...policy, spawnOnUnmatched: 'never' }, ['the-loop', 'ready'])).toBe(false);
    expect(autoStartAllowed(policy, ['the-loop', 'ready'], false)).toBe(false);
    expect(autoStartAllowed({ ...policy, requireStartCommand: false }, ['the-loop', 'ready'], false)).toBe(
      true,
    );
    expect(autoStartAllowed({ ...policy, requireStartCommand: false }, ['the-loop', 'ready'], true)).toBe(
      false,
    );
  });
});

describe('routing', () => {
  const none = {
    recordedLink: () => null,
    closingIssues: async () => [],
    pullRequest: async () => null,
  };
  it('parses issue-<n> branches and closing keywords', () => {
    expect(issueFromBranch('issue-42')).toBe(42);
    expect(issueFromBranch('feature/issue-42-login')).toBe(42);
    expect(issueFromBranch('tissue-42')).toBeNull();
    expect(issueFromBranch('loop/abc-issue')).toBeNull();
    expect(closingKeywordTarget('This fixes #12.', REPO)).toEqual({ repo: REPO, number: 12 });
    expect(closingKeywordTarget('Resolves: Other/Thing#3', REPO)).toEqual({
      repo: { host: 'github.com', owner: 'other', repo: 'thing' },
      number: 3,
    });
    expect(closingKeywordTarget('closes https://github.com/octo/repo/issues/9', REPO)).toEqual({
      repo: REPO,
      number: 9,
    });
    expect(closingKeywordTarget('see #12', REPO)).toBeNull();
  });
  it('an issue is its own work item', async () => {
    expect(
      await routeItem(REPO, { number: 5, isPullRequest: false, headRef: null, body: null }, none),
    ).toEqual({
      workItem: 'github:octo/repo#5',
      subject: 'github:octo/repo#5',
      own: true,
      reason: 'issue',
    });
  });
  it('a PR: recorded link, then closingIssuesReferences, then head branch, then closing keyword, else itself', async () => {
    const pr = { number: 9, isPullRequest: true, headRef: 'issue-3-x', body: 'fixes #4' };
    const asked: string[] = [];
    const lookups = {
      recordedLink: (ref: string) => (
        asked.push(`link ${ref}`),
        ref === 'github:octo/repo#9' ? 'github:octo/repo#1' : null
      ),
      closingIssues: async () => (asked.push('closing'), [{ repo: REPO, number: 2 }]),
      pullRequest: async () => null,
    };
    expect((await routeItem(REPO, pr, lookups)).reason).toBe('recorded-link');
    expect(asked).toEqual(['link github:octo/repo#9']);
    const r2 = await routeItem(REPO, pr, { ...lookups, recordedLink: () => null });
    expect(r2).toMatchObject({
      workItem: 'github:octo/repo#2',
      reason: 'closing-issues-references',
      own: false,
    });
    const r3 = await routeItem(REPO, pr, none);
    expect(r3).toMatchObject({ workItem: 'github:octo/repo#3', reason: 'head-branch' });
    const r4 = await routeItem(REPO, { ...pr, headRef: 'loop/x' }, none);
    expect(r4).toMatchObject({ workItem: 'github:octo/repo#4', reason: 'closing-keyword' });
    const r5 = await routeItem(REPO, { ...pr, headRef: 'loop/x', body: '' }, none);
    expect(r5).toMatchObject({ workItem: 'github:octo/repo#9', reason: 'own-work-item', own: true });
  });
  it('fetches the PR only when the payload lacks head or body', async () => {
    let fetched = 0;
    const r = await routeItem(
      REPO,
      { number: 9, isPullRequest: true, headRef: null, body: null },
      {
        ...none,
        pullRequest: async () => {
          fetched++;
          return {
            number: 9,
            url: '',
            title: '',
            body: 'Closes #7',
            headRef: 'x',
            headSha: 's',
            headOwner: 'octo',
            headRepo: null,
            state: 'open',
            merged: false,
            labels: [],
          };
        },
      },
    );
    expect(fetched).toBe(1);
    expect(r.workItem).toBe('github:octo/repo#7');
  });
  it('canonical refs are lower-case and omit the default host', () => {
    expect(itemRef({ host: 'GitHub.com', owner: 'Octo', repo: 'Repo' }, 1)).toBe('github:octo/repo#1');
    expect(itemRef({ host: 'ghe.example.com', owner: 'o', repo: 'r' }, 2)).toBe(
      'github:ghe.example.com/o/r#2',
    );
  });
});
