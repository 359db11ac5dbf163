import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git, gitSucceeds, type GitOptions } from './git';
import { refSlug, type WorkItemRef } from './ref';
import type { CheckoutRecord } from './schemas';

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

/**
 * Creates (or reuses) the work item's checkout: a worktree of the shared clone, or a clone of its own. `git.env`
 * is the environment git runs with; `git.onTick` is called while a clone or fetch runs (activity heartbeats).
 */
export async function ensureCheckout(
  root: string,
  ref: WorkItemRef,
  strategy: 'worktree' | 'clone',
  options: Omit<GitOptions, 'cwd'> = {},
): Promise<CheckoutRecord> {
  const layout = workspaceLayout(root, ref);
  const url = remoteUrl(ref);
  const inDir = (cwd: string): GitOptions => ({ ...options, cwd });
  if (strategy === 'clone') {
    if (!existsSync(join(layout.checkout, '.git'))) {
      await rm(layout.checkout, { recursive: true, force: true });
      mkdirSync(dirname(layout.checkout), { recursive: true });
      await git(['clone', '--quiet', url, layout.checkout], options);
      // the branch as origin has it (a node checked in elsewhere), else a new one from the default branch
      const pushed = `refs/remotes/origin/${layout.branch}`;
      const from = (await gitSucceeds(['rev-parse', '--verify', '--quiet', pushed], inDir(layout.checkout)))
        ? [pushed]
        : [];
      await git(['checkout', '--quiet', '-B', layout.branch, ...from], inDir(layout.checkout));
    }
    return { strategy, path: layout.checkout, clone: null, branch: layout.branch };
  }
  const clone = inDir(layout.sharedClone);
  if (!existsSync(join(layout.sharedClone, 'HEAD'))) {
    mkdirSync(dirname(layout.sharedClone), { recursive: true });
    await git(['clone', '--quiet', '--bare', url, layout.sharedClone], options);
    await git(['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'], clone);
  }
  await git(['fetch', '--quiet', 'origin'], clone);
  if (!existsSync(join(layout.checkout, '.git'))) {
    await rm(layout.checkout, { recursive: true, force: true });
    await git(['worktree', 'prune'], clone);
    if (await gitSucceeds(['rev-parse', '--verify', '--quiet', `refs/heads/${layout.branch}`], clone)) {
      await git(['worktree', 'add', '--quiet', layout.checkout, layout.branch], clone);
    } else {
      const head = (await git(['symbolic-ref', '--short', 'HEAD'], clone)).trim();
      // the branch as origin has it (a node checked in on another machine), else the default branch
      const pushed = `refs/remotes/origin/${layout.branch}`;
      const onOrigin = await gitSucceeds(['rev-parse', '--verify', '--quiet', pushed], clone);
      const base = onOrigin ? pushed : `refs/remotes/origin/${head}`;
      await git(['worktree', 'add', '--quiet', '-b', layout.branch, layout.checkout, base], clone);
    }
  }
  return { strategy, path: layout.checkout, clone: layout.sharedClone, branch: layout.branch };
}

/** Removes the work item's checkout (worktree or whole clone folder); the shared clone stays. */
export async function removeCheckout(
  root: string,
  ref: WorkItemRef,
  recorded: CheckoutRecord | null,
): Promise<string | null> {
  const layout = workspaceLayout(root, ref);
  const path = recorded?.path ?? layout.checkout;
  if (!existsSync(path)) return null;
  const clone = recorded?.clone ?? (existsSync(join(layout.sharedClone, 'HEAD')) ? layout.sharedClone : null);
  // Best effort: the folder is removed below either way, and prune forgets a worktree whose folder is gone.
  if (clone && existsSync(clone)) {
    await gitSucceeds(['worktree', 'remove', '--force', '--force', path], { cwd: clone });
  }
  // a large checkout takes a while: not on the worker's event loop
  await rm(path, { recursive: true, force: true });
  if (clone && existsSync(clone)) await gitSucceeds(['worktree', 'prune'], { cwd: clone });
  return path;
}
