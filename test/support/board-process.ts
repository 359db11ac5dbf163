import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli';
import { waitFor } from './wait';

export interface BoardProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `the-loop board` in a process of its own (the built dist/), its URL read from what it prints once it listens. */
export async function startBoardProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<BoardProcess> {
  const child = spawn(process.execPath, [BIN, 'board', ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await waitFor(
    'the board to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`the board exited with ${child.exitCode}: ${out}`);
      return /serving on (http:\/\/\S+)/.exec(out)?.[1] ?? null;
    },
    60_000,
    100,
  );
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
