import { configSchema } from '../../../src/config/schema';
import type { GitHubClient } from '../../../src/github/api';
import { waitingCommenter } from '../../../src/worker/waiting-comment';

/** The comments a commenter posted, through a client that records them (the GitHub API is the boundary). */
function recorded(yaml: Record<string, unknown>) {
  const posted: { repo: string; number: number; body: string }[] = [];
  const client = {
    postComment: (repo: { owner: string; repo: string }, number: number, body: string) => {
      posted.push({ repo: `${repo.owner}/${repo.repo}`, number, body });
      return Promise.resolve();
    },
  } as unknown as GitHubClient;
  const warnings: string[] = [];
  const comment = waitingCommenter(
    configSchema.parse(yaml),
    () => client,
    (line) => warnings.push(line),
  );
  return { comment, posted, warnings };
}

describe('github.announceWaits', () => {
  it('by default a question is said on the issue, with how to answer it; a permission prompt or a stuck turn is not', () => {
    const { comment, posted } = recorded({});
    comment?.('github:octo/repo#7', 'question', 'Which branch, `main` or `release`?');
    comment?.('github:octo/repo#7', 'permission', 'permission to use Bash: npm publish');
    comment?.('github:octo/repo#7', 'stuck', 'no progress for 20 min');
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ repo: 'octo/repo', number: 7 });
    expect(posted[0]?.body).toContain(
      'the session of github:octo/repo#7 asks — Which branch, `main` or `release`?',
    );
    expect(posted[0]?.body).toContain("Answer it with a comment here (it is the session's next turn)");
  });

  it('listed kinds are said; routing.waitingComment still adds permission prompts; none listed, no commenter', () => {
    const listed = recorded({ github: { announceWaits: ['permission', 'stuck'] } });
    listed.comment?.('github:octo/repo#8', 'question', 'Which one?');
    listed.comment?.('github:octo/repo#8', 'permission', 'permission to use Bash: npm publish');
    listed.comment?.('github:octo/repo#8', 'stuck', 'no progress for 20 min');
    expect(listed.posted.map((p) => p.body.split('\n')[0])).toEqual([
      expect.stringContaining('is waiting for a human — permission to use Bash: npm publish'),
      expect.stringContaining('is waiting for a human — no progress for 20 min'),
    ]);
    expect(listed.posted[0]?.body).toContain('`the-loop allow` or `the-loop deny <reason>`');

    const legacy = recorded({ github: { announceWaits: [] }, routing: { waitingComment: true } });
    legacy.comment?.('github:octo/repo#9', 'permission', 'permission to use Bash: ls');
    expect(legacy.posted).toHaveLength(1);
    expect(recorded({ github: { announceWaits: ['gate'] } }).comment).toBeUndefined();
  });
});
