import { open } from 'node:fs/promises';
import * as path from 'node:path';

import type { ProcessOutcome } from './process';

/** From the start of a harness's output: where codex names its thread. */
export const OUTPUT_HEAD_BYTES = 64 * 1024;
/** From the end: where every harness prints its result and cost line. */
export const OUTPUT_TAIL_BYTES = 8 * 1024 * 1024;

/**
 * A harness's stdout.txt or stderr.txt as the adapters read it: whole when small, else its first OUTPUT_HEAD_BYTES
 * and its last OUTPUT_TAIL_BYTES (from a line start) with a marker line between. A harness may print gigabytes;
 * the worker holds at most these bounds, and the result and cost lines are at the end.
 */
export async function readOutputFile(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    if (size <= OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES) return await readRange(handle, 0, size);
    const head = await readRange(handle, 0, OUTPUT_HEAD_BYTES);
    const tail = await readRange(handle, size - OUTPUT_TAIL_BYTES, OUTPUT_TAIL_BYTES);
    const headLines = head.slice(0, head.lastIndexOf('\n') + 1);
    const tailLines = tail.slice(tail.indexOf('\n') + 1);
    const skipped = size - Buffer.byteLength(headLines) - Buffer.byteLength(tailLines);
    return `${headLines}[… ${skipped} bytes of ${path.basename(file)} not read …]\n${tailLines}`;
  } finally {
    await handle.close();
  }
}

async function readRange(
  handle: Awaited<ReturnType<typeof open>>,
  position: number,
  length: number,
): Promise<string> {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read).toString('utf8');
}

/** What a finished run left in its directory, as the adapters read a run they watched end. */
export async function finishedRunOutcome(
  outputDir: string,
  exit: { pid: number | null; code: number | null; signal: string | null },
): Promise<ProcessOutcome> {
  return {
    spawnError: null,
    pid: exit.pid,
    exitCode: exit.code,
    signal: exit.signal,
    stdout: await readOutputFile(path.join(outputDir, 'stdout.txt')),
    stderr: await readOutputFile(path.join(outputDir, 'stderr.txt')),
    timedOut: false,
    aborted: false,
    kill: null,
  };
}
