import { closeSync, createWriteStream, openSync } from 'node:fs';
import { execa } from 'execa';

export interface BackgroundOptions {
  /** stdout and stderr are appended here. */
  logFile: string;
  /** The whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** A detached process outlives this one (`the-loop start`); otherwise it is an ordinary child. */
  detached: boolean;
}

/**
 * Starts a long-running process whose output goes to a log file, and returns its pid without waiting for it.
 * Its exit is not watched here: the callers poll for readiness files and liveness instead.
 */
export function spawnBackground(file: string, args: readonly string[], options: BackgroundOptions): number {
  const fd = openSync(options.logFile, 'a');
  try {
    // A stream over the open descriptor is handed to the child as the descriptor itself: the output goes
    // straight to the file, never through a pipe that would break when this process exits.
    const log = createWriteStream('', { fd, autoClose: false });
    const child = execa(file, args, {
      detached: options.detached,
      // A server or worker outlives the command that started it; execa must not kill it when we exit.
      cleanup: false,
      stdin: 'ignore',
      stdout: log,
      stderr: log,
      env: options.env ?? process.env,
      extendEnv: false,
      reject: false,
    });
    if (options.detached) child.unref();
    // The result only resolves when the process ends; nothing waits for it, and it never rejects.
    void child.catch(() => undefined);
    if (child.pid === undefined) throw new Error(`could not start ${file}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}
