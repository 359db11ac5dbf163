import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename } from 'node:fs/promises';

/** A 0700 directory, made so even when it already existed with looser modes. */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * Written 0600 through a temp file: a secret is never readable by others, not even for an instant. The temp file is
 * unique to the call: a worker's concurrent turns write the same key file.
 */
export async function writePrivate(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}
