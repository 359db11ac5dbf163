import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { readJsonIfExists, writeJsonAtomic } from './json-file';
import { sessionsRoot } from './paths';

/**
 * The directories goal sessions were started from, one small file each under the state root
 * (`goal-roots/<hash>.json`), so that the board shows the goal sessions of this machine and not only those under
 * its own working directory. One file per directory: two `loopy run`s at once never lose each other's entry.
 */
export const goalRootFileSchema = z.object({ cwd: z.string().min(1) }).strict();

export const goalRootsDir = (stateRoot: string) => join(stateRoot, 'goal-roots');

/**
 * Records `cwd` as a place with goal sessions, once one was started there; a directory already recorded is not
 * written again. Its sessions directory is made first (the session's own is made by the worker a moment later), so
 * that a board that reads on the record's arrival finds a directory to watch.
 */
export function rememberGoalRoot(stateRoot: string, cwd: string): void {
  const dir = goalRootsDir(stateRoot);
  const absolute = resolve(cwd);
  mkdirSync(sessionsRoot(absolute), { recursive: true });
  const file = join(dir, `${createHash('sha256').update(absolute).digest('hex').slice(0, 24)}.json`);
  if (existsSync(file)) return;
  mkdirSync(dir, { recursive: true });
  writeJsonAtomic(file, goalRootFileSchema, { cwd: absolute });
}

/**
 * Every recorded directory whose `.loopy_loop/sessions` still exists, and `cwd` first when it has one; an unreadable
 * entry is skipped (it names no sessions to show).
 */
export function goalRoots(stateRoot: string, cwd: string): string[] {
  const roots = new Set<string>([resolve(cwd)]);
  let names: string[] = [];
  try {
    names = readdirSync(goalRootsDir(stateRoot));
  } catch {
    // no goal session was started through this state directory yet
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    try {
      const entry = readJsonIfExists(join(goalRootsDir(stateRoot), name), goalRootFileSchema);
      if (entry) roots.add(entry.cwd);
    } catch {
      continue;
    }
  }
  return [...roots].filter((root) => existsSync(sessionsRoot(root)));
}
