// `the-loop board --port 0` as a child process (the built dist/, as a user runs it), its URL read from the line it
// prints once it listens.
import { join } from 'node:path';
import { execa } from 'execa';

const LISTEN_TIMEOUT_MS = 60_000;

export interface BoardChild {
  /** Where it serves, once it listens; rejects when it exits first or takes too long. */
  url: Promise<string>;
  /** Stops it (SIGTERM) and waits for it to exit; harmless once it has. */
  stop(): Promise<void>;
}

/** Returns at once, so that the stop can be registered before the wait for its URL. */
export function startBoard(repo: string, cwd: string, env: Record<string, string>): BoardChild {
  // extendEnv: false — the developer's own TEMPORAL_ADDRESS, board token or config must not reach this board
  const child = execa(process.execPath, [join(repo, 'bin', 'the-loop.js'), 'board', '--port', '0'], {
    cwd,
    env,
    extendEnv: false,
    all: true,
    reject: false,
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the board did not listen within ${LISTEN_TIMEOUT_MS / 1000} s: ${output}`)),
      LISTEN_TIMEOUT_MS,
    );
    child.all.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /serving on (http:\/\/\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void child.then((result) => {
      clearTimeout(timer);
      reject(new Error(`the board exited (${result.exitCode ?? result.signal}): ${output.trim()}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await child;
    },
  };
}
