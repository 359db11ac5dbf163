import type { Io } from '../../src/cli/io';

/** An Io that keeps what a verb printed, line by line (a verb may print several lines in one call). */
export function capturedIo(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (text) => stdout.push(...text.split('\n')),
    err: (text) => stderr.push(...text.split('\n')),
  };
}
