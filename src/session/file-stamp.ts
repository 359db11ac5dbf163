import { statSync, type Stats } from 'node:fs';

/**
 * A file's identity and version as far as stat() tells: a write through rename gives it a new inode, a write in place
 * a new size or modification time. Equal stamps mean the same content, except for two writes within one tick of the
 * kernel's clock that keep the inode and size (see the list cache's rule for that).
 */
export function stampOf(st: Stats): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** The file's stamp; null when it cannot be stat'ed (absent, or not reachable). */
export function fileStamp(file: string): string | null {
  try {
    return stampOf(statSync(file));
  } catch {
    return null;
  }
}
