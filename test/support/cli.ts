import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(__dirname, '..', '..', 'bin', 'the-loop.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a user would: bin/the-loop.js (or bin/loopy) executed, with the built dist/ behind it. */
export function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    input?: string;
    name?: 'the-loop' | 'loopy';
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv0 = options.name === 'loopy' ? join(__dirname, '..', '..', 'bin', 'loopy') : BIN;
    // The launcher itself, as a shell runs it: `sessions list` then starts from the start-up snapshot.
    const child = spawn(argv0, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timeoutMs = options.timeoutMs ?? 120_000;
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      // A command that hangs is a failure of its own, never a result a test might leave unchecked.
      if (hung) reject(new Error(`\`${args.join(' ')}\` did not exit within ${timeoutMs} ms\n${stderr}`));
      else resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
