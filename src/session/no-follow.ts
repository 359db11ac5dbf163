import * as fs from 'node:fs';

export class NotARegularFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} is a symbolic link or not a regular file; the-loop reads only regular files here`);
    this.name = 'NotARegularFileError';
  }
}

/**
 * Reads a file an agent or a user may have placed in the session directory without following a symbolic link
 * (O_NOFOLLOW on the open itself, so a link swapped in after a check is refused too): a `child_requests/` entry
 * linked to /etc/shadow must not carry its bytes into children.json, the events and the Temporal history.
 */
export function readRegularFileNoFollow(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new NotARegularFileError(path);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new NotARegularFileError(path);
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
