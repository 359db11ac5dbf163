import {
  canonicalRef,
  parsePullRequestRef,
  parseWorkItemRef,
  RefError,
  refSlug,
  tmuxSessionName,
} from '../../../src/work-item/ref';
import { workItemWorkflowId } from '../../../src/workflows/work-item/ids';

describe('work-item refs', () => {
  it('parses and canonicalizes github refs, with and without a host', () => {
    expect(parseWorkItemRef('github:octo/repo#15')).toEqual({
      provider: 'github',
      host: 'github.com',
      owner: 'octo',
      repo: 'repo',
      number: 15,
    });
    expect(canonicalRef('github:Octo/Re.po#15')).toBe('github:octo/re.po#15');
    expect(canonicalRef('github:github.com/octo/repo#15')).toBe('github:octo/repo#15');
    expect(canonicalRef('github:ghe.example.com/octo/repo#7')).toBe('github:ghe.example.com/octo/repo#7');
    expect(workItemWorkflowId(canonicalRef('github:octo/repo#15'))).toBe('work-item/github:octo/repo#15');
  });

  it.each([
    'octo/repo#15',
    'github:octo/repo',
    'github:octo/repo#',
    'github:octo/repo#0',
    'github:octo/repo#015',
    'github:octo/repo#1x',
    'github:octo#15',
    'github:-octo/repo#15',
    'github:octo/re po#15',
    'github:octo/..#15',
    'github:a/b/c/d#1',
    'github:not_a_host/octo/repo#1',
    'gitlab:octo/repo#1',
    'github:octo/repo#15#16',
  ])('rejects %s with a RefError', (text) => {
    expect(() => parseWorkItemRef(text)).toThrow(RefError);
  });

  it('slugs are tmux- and file-safe, stable, and distinct where the readable part collides', () => {
    const a = refSlug(parseWorkItemRef('github:octo-a/repo#15'));
    const b = refSlug(parseWorkItemRef('github:octo/a-repo#15'));
    expect(a).toMatch(/^[a-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(refSlug(parseWorkItemRef('github:Octo/Repo#15'))).toBe(
      refSlug(parseWorkItemRef('github:octo/repo#15')),
    );
    expect(refSlug(parseWorkItemRef('github:octo/my.repo#15'))).toMatch(
      /^github-octo-my_repo-15-[0-9a-f]{6}$/,
    );
    expect(tmuxSessionName(parseWorkItemRef('github:octo/repo#15'))).toMatch(/^loop-github-octo-repo-15-/);
  });

  it('pull request refs: a number in the work item repository, or a full ref', () => {
    const item = parseWorkItemRef('github:octo/repo#15');
    expect(canonicalRef('github:octo/repo#16')).toBe('github:octo/repo#16');
    expect(parsePullRequestRef('16', item).number).toBe(16);
    expect(parsePullRequestRef('#16', item)).toMatchObject({ owner: 'octo', repo: 'repo', number: 16 });
    expect(parsePullRequestRef('github:octo/other#3', item)).toMatchObject({ repo: 'other', number: 3 });
    expect(() => parsePullRequestRef('pr-16', item)).toThrow(RefError);
    expect(() => parsePullRequestRef('#0', item)).toThrow(RefError);
  });
});
