import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWorkItemRef } from '../../../src/work-item/ref';
import { ensureCheckout, workspaceLayout } from '../../../src/work-item/workspace';

const ref = parseWorkItemRef('github:octo/repo#9');

/** A bare origin for https://github.com/octo/repo (git's insteadOf), whose main has one commit. */
function world(): { root: string; env: NodeJS.ProcessEnv; origin: string; seed: string } {
  const root = mkdtempSync(join(tmpdir(), 'workspace-'));
  const originRoot = join(root, 'origin');
  const origin = join(originRoot, 'octo', 'repo.git');
  const gitConfig = join(root, 'gitconfig');
  writeFileSync(
    gitConfig,
    `[url "${originRoot}/"]\n\tinsteadOf = https://github.com/\n[user]\n\temail = t@example.com\n\tname = T\n`,
  );
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  mkdirSync(origin, { recursive: true });
  git(origin, 'init', '--quiet', '--bare', '-b', 'main');
  const seed = join(root, 'seed');
  git(root, 'clone', '--quiet', origin, seed);
  git(seed, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(join(seed, 'README.md'), '# repo\n');
  git(seed, 'add', 'README.md');
  git(seed, 'commit', '--quiet', '-m', 'init');
  git(seed, 'push', '--quiet', 'origin', 'main');
  return { root, env, origin, seed };
}

describe("ensureCheckout: a work item's branch as origin has it", () => {
  it.each(['worktree', 'clone'] as const)(
    '%s: a branch pushed from elsewhere is checked out, not started afresh from main',
    async (strategy) => {
      const { root, env, seed } = world();
      // another item of the repository came first: the shared clone exists before the branch was pushed
      await ensureCheckout(join(root, 'ws'), parseWorkItemRef('github:octo/repo#10'), strategy, { env });
      const { branch } = workspaceLayout(join(root, 'ws'), ref);
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: seed, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      git('checkout', '--quiet', '-b', branch);
      writeFileSync(join(seed, 'state.txt'), 'from another machine\n');
      git('add', 'state.txt');
      git('commit', '--quiet', '-m', 'elsewhere');
      git('push', '--quiet', 'origin', branch);

      const checkout = await ensureCheckout(join(root, 'ws'), ref, strategy, { env });
      expect(checkout.branch).toBe(branch);
      expect(readFileSync(join(checkout.path, 'state.txt'), 'utf8')).toBe('from another machine\n');
    },
  );

  it.each(['worktree', 'clone'] as const)(
    '%s: with no such branch on origin, a new one from main',
    async (strategy) => {
      const { root, env } = world();
      const checkout = await ensureCheckout(join(root, 'ws'), ref, strategy, { env });
      expect(readFileSync(join(checkout.path, 'README.md'), 'utf8')).toBe('# repo\n');
      const head = execFileSync('git', ['symbolic-ref', '--short', 'HEAD'], {
        cwd: checkout.path,
        env,
        encoding: 'utf8',
      });
      expect(head.trim()).toBe(checkout.branch);
    },
  );
});
