import { printable } from './printable';

/** Where a command prints: injected, so that a command's run() is tested without a process. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  // A warning or note is one line that may quote what a user typed or a record held: its control characters are
  // escaped, as the central error printer's are (program.ts).
  err: (line) => process.stderr.write(`${printable(line)}\n`),
};

/** Runs a verb with the process's streams; its exit code becomes the process's. */
export async function runWithProcessIo<O>(
  run: (options: O, io: Io) => Promise<number>,
  options: O,
): Promise<void> {
  process.exitCode = await run(options, processIo);
}
