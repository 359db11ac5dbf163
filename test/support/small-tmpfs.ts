import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Disk-full tests: a file system small enough to fill in a moment. Mounting one needs root. */

/** A 2 MB tmpfs, unmounted by `cleanups`. */
export function smallTmpfs(cleanups: (() => void)[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopy-enospc-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
  cleanups.push(() => execFileSync('umount', ['-l', dir]));
  return dir;
}

/** Fills the file system that holds `dir` until a write fails with ENOSPC; returns the filler to delete. */
export function fillUp(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return file;
}
