import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { refSlug, type WorkItemRef } from './ref';
import type { CheckoutRecord } from './schemas';

/** The environment git runs with: explicit, so that a caller's (or a test's) git config reaches it. */
let gitEnv: NodeJS.ProcessEnv = process.env;

function git(args: string[], cwd?: string): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 300_000, env: gitEnv });
  if (result.error) throw new Error(`git ${args[0] ?? ''} failed: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `git ${args.join(' ')} failed: ${(result.stderr ?? '').trim() || `exit ${result.status}`}`,
    );
  }
  return result.stdout ?? '';
}

/** The remote of a work item's repository; git's `url.<base>.insteadOf` rewrites it (mirrors, tests). */
export function remoteUrl(ref: WorkItemRef): string {
  return `https://${ref.host}/${ref.owner}/${ref.repo}.git`;
}

export interface WorkspaceLayout {
  /** The work item's own checkout: a worktree, or its whole clone. */
  checkout: string;
  /** The shared per-repository clone (worktree strategy). */
  sharedClone: string;
  branch: string;
}

/** Derived from the ref alone, so that a checkout a crash left behind is found without any record. */
export function workspaceLayout(root: string, ref: WorkItemRef): WorkspaceLayout {
  const slug = refSlug(ref);
  return {
    checkout: join(root, slug),
    sharedClone: join(root, '_clones', ref.host, ref.owner, `${ref.repo}.git`),
    branch: `loop/${slug}`,
  };
}

function defaultBranch(clone: string): string {
  return git(['symbolic-ref', '--short', 'HEAD'], clone).trim();
}

/** Creates (or reuses) the work item's checkout: a worktree of the shared clone, or a clone of its own. */
export function ensureCheckout(
  root: string,
  ref: WorkItemRef,
  strategy: 'worktree' | 'clone',
  env: NodeJS.ProcessEnv = process.env,
): CheckoutRecord {
  gitEnv = env;
  const layout = workspaceLayout(root, ref);
  const url = remoteUrl(ref);
  if (strategy === 'clone') {
    if (!existsSync(join(layout.checkout, '.git'))) {
      rmSync(layout.checkout, { recursive: true, force: true });
      mkdirSync(dirname(layout.checkout), { recursive: true });
      git(['clone', '--quiet', url, layout.checkout]);
      git(['checkout', '--quiet', '-B', layout.branch], layout.checkout);
    }
    return { strategy, path: layout.checkout, clone: null, branch: layout.branch };
  }
  if (!existsSync(join(layout.sharedClone, 'HEAD'))) {
    mkdirSync(dirname(layout.sharedClone), { recursive: true });
    git(['clone', '--quiet', '--bare', url, layout.sharedClone]);
    git(['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'], layout.sharedClone);
  }
  git(['fetch', '--quiet', 'origin'], layout.sharedClone);
  if (!existsSync(join(layout.checkout, '.git'))) {
    rmSync(layout.checkout, { recursive: true, force: true });
    git(['worktree', 'prune'], layout.sharedClone);
    const hasBranch =
      spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${layout.branch}`], {
        cwd: layout.sharedClone,
        env,
      }).status === 0;
    if (hasBranch) git(['worktree', 'add', '--quiet', layout.checkout, layout.branch], layout.sharedClone);
    else {
      const base = `refs/remotes/origin/${defaultBranch(layout.sharedClone)}`;
      git(['worktree', 'add', '--quiet', '-b', layout.branch, layout.checkout, base], layout.sharedClone);
    }
  }
  return { strategy, path: layout.checkout, clone: layout.sharedClone, branch: layout.branch };
}

/** Removes the work item's checkout (worktree or whole clone folder); the shared clone stays. */
export function removeCheckout(
  root: string,
  ref: WorkItemRef,
  recorded: CheckoutRecord | null,
): string | null {
  const layout = workspaceLayout(root, ref);
  const path = recorded?.path ?? layout.checkout;
  if (!existsSync(path)) return null;
  const clone = recorded?.clone ?? (existsSync(join(layout.sharedClone, 'HEAD')) ? layout.sharedClone : null);
  if (clone && existsSync(clone)) {
    spawnSync('git', ['worktree', 'remove', '--force', '--force', path], { cwd: clone });
  }
  rmSync(path, { recursive: true, force: true });
  if (clone && existsSync(clone)) spawnSync('git', ['worktree', 'prune'], { cwd: clone });
  return path;
}
